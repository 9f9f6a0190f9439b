-- @name admin.import-stage
-- @returns nothing (creates a table)
-- An import's staging table: the columns of `events` plus the file's line number. Lines are staged here
-- batch by batch and reach `events` only in admin.import-move, so an import that stops half-way (a bad
-- line, an engine error, a killed process) leaves `events` and `sessions` untouched. A plain local
-- MergeTree on every topology (`events` may be Distributed).
CREATE TABLE {stage:Identifier}
ENGINE = MergeTree
ORDER BY line
AS SELECT toUInt64(0) AS line, * FROM events LIMIT 0
