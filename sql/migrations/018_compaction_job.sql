-- @migration 018_compaction_job
-- The day a compaction is building, its number and its read range, as one row the compaction writes before
-- the day's builds, which read it (admin/compaction-job.sql) instead of binding
-- those values. Embedded, a statement with bound parameters holds chDB's one process-wide chain of them
-- while it runs, so every data statement of the gateway waited behind a day's build (0.5-1.3 s on 10M
-- events); a statement without parameters runs beside them on its own connection. Rewritten for each day.
-- Like the staging tables, it is per node (a cluster compacts nothing).
CREATE TABLE IF NOT EXISTS compaction_job {{on_cluster}}
(
  day Date,
  compaction UInt64,
  read_from DateTime64(3, 'UTC'),
  read_to DateTime64(3, 'UTC')
)
ENGINE = {{sharded MergeTree()}}
ORDER BY tuple();
