-- @name admin.compact-stage-rows
-- @returns one row: rows (in a staging table)
SELECT count() AS rows
FROM {stage:Identifier}
