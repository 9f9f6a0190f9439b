-- @name admin.compaction-run
-- @returns fragment: a WITH clause: the run under way as run_last_day (the last day it may compact),
--   run_lookback_seconds, run_keep_ms (how long a replaced compaction is kept) and run_definition.
-- Placed before the SELECT of a run's check that reads a whole table, and seen by its subqueries; written
-- as typed literals, as admin/compaction-job.sql is, so the check binds nothing.
WITH
  {lastDay:Date} AS run_last_day,
  {lookbackSeconds:UInt32} AS run_lookback_seconds,
  {keepMs:UInt64} AS run_keep_ms,
  {definition:UInt64} AS run_definition
