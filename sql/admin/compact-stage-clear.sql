-- @name admin.compact-stage-clear
-- @returns nothing (empties a staging table; on a cluster, the shards' local staging tables, ON CLUSTER)
TRUNCATE TABLE {stage:Identifier} /* @on_cluster */
