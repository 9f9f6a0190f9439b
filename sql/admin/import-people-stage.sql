-- @name admin.import_people_stage
-- @returns nothing (DDL)
-- The staging table of a profiles or groups import: the table's columns (`table`: profiles or groups, from
-- the importer's closed list), no rows and no defaults (the importer writes every column). Named as event
-- imports' stages, so a killed import's is dropped the same way.
CREATE TABLE {stage:Identifier}
ENGINE = MergeTree
ORDER BY tuple()
AS SELECT * FROM {table:Identifier} LIMIT 0
