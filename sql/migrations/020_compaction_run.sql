-- @migration 020_compaction_run
-- What a compaction run compares and keeps by: the last day it may compact, the session lookback its records
-- are for and how long a replaced compaction is kept, as one row the run writes first.
-- The run's checks that read a whole table (admin/compact-stale-days.sql over every partial row,
-- admin/compact-superseded.sql over every stored compaction) read it (admin/compaction-run.sql) instead of
-- binding those values: embedded, a bound statement holds chDB's one process-wide chain of them, and these
-- grow with a project's history (on 40M events over 360 days, the stale days 99 ms and the four tables'
-- compactions 195 ms, every run). As migrations/018_compaction_job.sql, rewritten for each run, per node.
CREATE TABLE IF NOT EXISTS compaction_run {{on_cluster}}
(
  last_day Date,
  lookback_seconds UInt32,
  keep_ms UInt64
)
ENGINE = {{sharded MergeTree()}}
ORDER BY tuple();
