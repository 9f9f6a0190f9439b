-- @name admin.compact-stage-sync
-- @returns nothing (on a cluster: every replica of a local staging table has fetched the rows staged on its shard)
-- A build inserts a shard's rows on one of its replicas, and the ON CLUSTER attach runs on one replica of
-- each shard, not necessarily that one: it must find every staged row there.
SYSTEM SYNC REPLICA /* @on_cluster */ {stage:Identifier}
