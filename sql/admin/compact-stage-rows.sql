-- @name admin.compact-stage-rows
-- @returns one row: rows (in the staging table)
SELECT count() AS rows
FROM sessions_settled_stage
