-- @name admin.import-drop
-- @returns nothing (drops a table)
DROP TABLE IF EXISTS {stage:Identifier}
