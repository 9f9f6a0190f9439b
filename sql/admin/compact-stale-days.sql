-- @name admin.compact-stale-days
-- @returns day Date
-- the UTC days up to the run's last day to compact, oldest first: day
-- A day needs a compaction when, for some project, the partial rows of its read range
-- [day - lookback, day + 1 day + lookback) are not as many as its last compaction recorded (or none did, or
-- one did under another definition of the combined tables).
-- Each partial row is counted for every day whose read range holds it: by the hour, as the lookback is
-- whole hours (every row of an hour lies in the same days' ranges). The last day and the lookback are the
-- run's (admin/compaction-run.sql): no bound parameter, so it reads every partial row beside data statements.
/* @run */
SELECT day
FROM
(
  SELECT project_id, toDate(dayNumber) AS day, sum(hour_rows) AS partial_rows
  FROM
  (
    SELECT project_id, toStartOfHour(started_at) AS hour, count() AS hour_rows
    FROM sessions
    GROUP BY project_id, hour
  )
  ARRAY JOIN range(
    toUInt32(toDate(hour - toIntervalSecond(run_lookback_seconds) - toIntervalDay(1))) + 1,
    toUInt32(toDate(hour + toIntervalSecond(run_lookback_seconds))) + 1
  ) AS dayNumber
  GROUP BY project_id, day
) AS current
LEFT JOIN
(
  SELECT project_id, day, partial_rows
  FROM session_compactions FINAL
  WHERE lookback_seconds = run_lookback_seconds
    AND definition = run_definition
) AS recorded ON recorded.project_id = current.project_id AND recorded.day = current.day
WHERE current.day <= run_last_day
GROUP BY day
HAVING countIf(recorded.partial_rows != current.partial_rows) > 0
ORDER BY day
