-- @name admin.compact-stage-rows
-- @returns one row: sessions (in the staging table)
SELECT count() AS sessions
FROM sessions_settled_stage
