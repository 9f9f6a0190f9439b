-- @name admin.compaction-job
-- @returns a WITH clause: the job under way (migrations/018_compaction_job.sql) as job_day, job_compaction,
--   job_read_from and job_read_to, constants once read; an error unless the table holds exactly one job.
-- Placed before the SELECT of a compaction statement, and seen by its subqueries.
WITH
  (SELECT any(day) FROM compaction_job HAVING throwIf(count() != 1, 'compaction_job must hold the one job under way') = 0) AS job_day,
  (SELECT any(compaction) FROM compaction_job HAVING throwIf(count() != 1, 'compaction_job must hold the one job under way') = 0) AS job_compaction,
  (SELECT any(read_from) FROM compaction_job HAVING throwIf(count() != 1, 'compaction_job must hold the one job under way') = 0) AS job_read_from,
  (SELECT any(read_to) FROM compaction_job HAVING throwIf(count() != 1, 'compaction_job must hold the one job under way') = 0) AS job_read_to
