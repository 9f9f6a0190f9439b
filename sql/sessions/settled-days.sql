-- @name insights.settled_days
-- @returns day Date, compaction String
-- one row per UTC day from firstDay to lastDay whose sessions (sessions_settled, session_rollup)
--   and page views (page_views_settled, page_rollup) are read combined: day, and compaction (as text: it is beyond 2^53),
--   the compaction to read them from. Its rows bind settledDays, settledCompactions and the regrouped days'
--   range (regroupFrom, regroupTo) of the session questions (queries/run/settled-check.ts).
-- A day counts as settled when its last recorded compaction for the lookback was built by this gateway's
-- definition of the combined tables (queries/sessions/definition.ts) and still holds: its read range
-- [day - lookback, day + 1 day + lookback) holds as many partial rows as that compaction saw (see
-- migrations/002_derived_tables.sql). The rows of that compaction are read, whatever other compactions
-- of the day sit beside them: a compaction is recorded only once all three tables hold it, and kept while
-- a reader may read it (migrations/002_derived_tables.sql). The count comes from a projection
-- (migrations/002_derived_tables.sql), not from rows.
SELECT recorded.day AS day, toString(recorded.compaction) AS compaction
FROM
(
  SELECT day, compaction, partial_rows
  FROM session_compactions FINAL
  WHERE project_id = {projectId:String}
    AND lookback_seconds = {lookbackSeconds:UInt32}
    AND definition = {definition:UInt64}
    AND day >= {firstDay:Date}
    AND day <= {lastDay:Date}
) AS recorded
INNER JOIN
(
  -- Counted by the hour, then each hour for every day whose read range holds it: the lookback is
  -- whole hours, so every row of an hour lies in the same days' ranges, and the hours' bounds are the
  -- rows' bounds (read from the rows_by_hour projection).
  SELECT toDate(dayNumber) AS day, sum(hour_rows) AS partial_rows
  FROM
  (
    SELECT toStartOfHour(started_at) AS hour, count() AS hour_rows
    FROM sessions
    WHERE project_id = {projectId:String}
      AND toStartOfHour(started_at) >= {countFrom:DateTime64(3, 'UTC')}
      AND toStartOfHour(started_at) < {countTo:DateTime64(3, 'UTC')}
    GROUP BY hour
  )
  ARRAY JOIN range(
    toUInt32(toDate(hour - toIntervalSecond({lookbackSeconds:UInt32}) - toIntervalDay(1))) + 1,
    toUInt32(toDate(hour + toIntervalSecond({lookbackSeconds:UInt32}))) + 1
  ) AS dayNumber
  GROUP BY day
) AS current ON current.day = recorded.day
WHERE current.partial_rows = recorded.partial_rows
ORDER BY day
