-- @migration 021_compaction_claims
-- A compaction's lease is a claim that cannot be shared (server/admin/compaction-lease.ts): each holder
-- claims the next generation, and the claims of one generation carry the same deduplication token
-- (admin/compact-lease-claim.sql), so the engine keeps the first and drops the others, atomically, and every
-- contender reads the same winner. The earliest of the rows each contender could see (migration 019) was
-- not: a row is seen only once its insert commits, so two contenders could each see themselves first.
-- compaction_lease stays the holders' log: a row for each day a holder compacts, and a released row.
CREATE TABLE IF NOT EXISTS compaction_claims {{on_cluster}}
(
  generation UInt64,
  holder String,
  claimed_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = {{everywhere MergeTree()}}
ORDER BY generation
SETTINGS non_replicated_deduplication_window = 1000;

-- What a combined table's rows were built by: a compaction records the version of the definitions of its
-- builds (queries/core/compaction-definition.ts), and a day recorded under another version is not settled
-- and is compacted again. Records from before have version 0, which no definition has.
ALTER TABLE {{table session_compactions}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS definition UInt64 DEFAULT 0;

-- The Distributed table on a cluster (the same table again on a single node: nothing to add).
ALTER TABLE session_compactions {{on_cluster}}
  ADD COLUMN IF NOT EXISTS definition UInt64 DEFAULT 0;

ALTER TABLE compaction_run {{on_cluster}}
  ADD COLUMN IF NOT EXISTS definition UInt64 DEFAULT 0;
