-- @name admin.compact-stage-rows
-- @returns rows UInt64
-- one row: rows (in a staging table)
SELECT count() AS rows
FROM {stage:Identifier}
