-- @name admin.compact-stage-clear
-- @returns nothing (empties the staging table)
TRUNCATE TABLE sessions_settled_stage
