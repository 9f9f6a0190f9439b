-- @name admin.compact-unmask
-- @returns nothing (has the parts of one partition of a combined table rewritten without their masked rows)
-- A mutation, scheduled and not waited for: embedded, a statement waiting here held every data statement
-- of the gateway behind a month's rewrite. Readers keep reading the parts they started with; the rewritten
-- parts hold the same live rows. On a cluster, the shards' local tables, ON CLUSTER.
ALTER TABLE {table:Identifier} /* @on_cluster */ APPLY DELETED MASK IN PARTITION ID {partition:String}
SETTINGS mutations_sync = 0
