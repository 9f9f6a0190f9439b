-- @name admin.import_people_move
-- @returns nothing (insert)
-- Writes the new versions of a profiles or groups import into its table (`table`, from the importer's closed list) in one insert.
INSERT INTO {table:Identifier}
SELECT *
FROM (/* @new_people */)
