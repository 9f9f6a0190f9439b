-- @name admin.compact-superseded
-- @returns day Date, compaction String
-- the compactions of a combined table that no reader can still be reading: day, compaction (as
--   text: the number is beyond 2^53, and JSON would round it)
-- A reader keeps the compaction that its (project, day, lookback) record names (sessions/settled-days.sql),
-- so one that some record still names stays. One that none names goes once the day has a newer compaction
-- recorded at least `keepMs` ago, longer than a settled check's rows naming the older one are reused plus a
-- statement that read them may still run (queries/run/settled-check.ts). One newer
-- than every record (being built, or its build failed) stays until a later one is recorded. `keepMs` is the
-- run's (admin/compaction-run.sql) and the table a declared one (queries/sessions/combined-tables.ts): no bound
-- parameter, so it reads every stored compaction beside data statements.
/* @run */
SELECT stored.day AS day, toString(stored.compaction) AS compaction
FROM
(
  SELECT day, compaction
  FROM /* @table */
  GROUP BY day, compaction
) AS stored
INNER JOIN
(
  SELECT day, max(compaction) AS newest
  FROM session_compactions
  WHERE recorded_at <= now64(3) - toIntervalMillisecond(run_keep_ms)
  GROUP BY day
) AS recorded ON recorded.day = stored.day
WHERE stored.compaction < recorded.newest
  AND (stored.day, stored.compaction) NOT IN (SELECT day, compaction FROM session_compactions FINAL)
ORDER BY day, compaction
