-- @migration 019_compaction_lease
-- Who may compact: one compaction at a time per database. Gateways in server mode may run as several replicas,
-- each compacting on its schedule, and two compactions at once would share the staging tables and the
-- compaction job (migration 018): one could attach the other's staged rows, or build the other's day under its
-- own record. Who holds the lease is decided by a claim since migrations/021_compaction_claims.sql (the
-- earliest row a contender could see was not a claim two could not share); this table is the holders' log. The
-- holder adds a row for each day it compacts, and a released row when it ends (an insert: a delete would wait
-- for its mutation); the rows of one that died stop counting after the lease time (server/admin/compaction-lease.ts),
-- and every row goes a day after it was taken.
CREATE TABLE IF NOT EXISTS compaction_lease {{on_cluster}}
(
  holder String,
  taken_at DateTime64(3, 'UTC') DEFAULT now64(3),
  released UInt8 DEFAULT 0
)
ENGINE = {{everywhere MergeTree()}}
ORDER BY (taken_at, holder)
TTL toDateTime(taken_at) + INTERVAL 1 DAY;
