-- @name admin.compaction-job
-- @returns fragment: a WITH clause: the day a compaction builds as job_day, its number as job_compaction, and its read
--   range [day - lookback, day + 1 day + lookback) as job_read_from and job_read_to.
-- Placed before the SELECT of a day's statement and seen by its subqueries; written into the statement's
-- text as typed literals (queries/core/literals.ts), so the statement binds nothing: embedded, it runs
-- beside the gateway's data statements instead of holding chDB's one chain of bound statements, and on a
-- cluster every shard reads the same constants.
WITH
  {day:Date} AS job_day,
  {compaction:UInt64} AS job_compaction,
  {readFrom:DateTime64(3, 'UTC')} AS job_read_from,
  {readTo:DateTime64(3, 'UTC')} AS job_read_to
