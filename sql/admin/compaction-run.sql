-- @name admin.compaction-run
-- @returns a WITH clause: the run under way (migrations/020_compaction_run.sql) as run_last_day,
--   run_lookback_seconds, run_keep_ms and run_definition, constants once read; an error unless the table holds exactly one run.
-- Placed before the SELECT of a run's check, and seen by its subqueries.
WITH
  (SELECT any(last_day) FROM compaction_run HAVING throwIf(count() != 1, 'compaction_run must hold the one run under way') = 0) AS run_last_day,
  (SELECT any(lookback_seconds) FROM compaction_run HAVING throwIf(count() != 1, 'compaction_run must hold the one run under way') = 0) AS run_lookback_seconds,
  (SELECT any(keep_ms) FROM compaction_run HAVING throwIf(count() != 1, 'compaction_run must hold the one run under way') = 0) AS run_keep_ms,
  (SELECT any(definition) FROM compaction_run HAVING throwIf(count() != 1, 'compaction_run must hold the one run under way') = 0) AS run_definition
