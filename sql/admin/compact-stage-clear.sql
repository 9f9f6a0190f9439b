-- @name admin.compact-stage-clear
-- @returns nothing (empties a staging table: sessions_settled_stage or page_views_settled_stage)
TRUNCATE TABLE {stage:Identifier}
