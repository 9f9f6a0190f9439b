-- @name insights.settled_days
-- @returns a scalar: the UTC days from firstDay to lastDay whose sessions (sessions_settled) and page views
--   (page_views_settled, page_rollup) are read combined
-- A day counts as settled when the rows of all three tables are of its last recorded compaction and its
-- read range [day - lookback, day + 1 day + lookback) still holds as many partial rows as that compaction
-- saw (see migrations/005_settled_sessions.sql, 006_settled_page_views.sql and 008_page_rollup.sql).
-- Both readings come from part metadata and a projection (migrations/007_settled_by_compaction.sql), not
-- from rows.
  (
    SELECT groupArray(recorded.day)
    FROM
    (
      SELECT day, compaction, partial_rows
      FROM session_compactions FINAL
      WHERE project_id = {projectId:String}
        AND lookback_seconds = {lookbackSeconds:UInt32}
        AND day >= {firstDay:Date}
        AND day <= {lastDay:Date}
    ) AS recorded
    INNER JOIN
    (
      -- The day's compactions in any of the tables, from the partition key's per-part min/max (a partition per
      -- day and compaction, over all projects: a compaction builds a day for all of them).
      SELECT day, min(oldest) AS oldest, max(newest) AS newest
      FROM
      (
        SELECT day, min(compaction) AS oldest, max(compaction) AS newest
        FROM sessions_settled
        WHERE day >= {firstDay:Date}
          AND day <= {lastDay:Date}
        GROUP BY day

        UNION ALL

        SELECT day, min(compaction) AS oldest, max(compaction) AS newest
        FROM page_views_settled
        WHERE day >= {firstDay:Date}
          AND day <= {lastDay:Date}
        GROUP BY day

        UNION ALL

        SELECT day, min(compaction) AS oldest, max(compaction) AS newest
        FROM page_rollup
        WHERE day >= {firstDay:Date}
          AND day <= {lastDay:Date}
        GROUP BY day
      )
      GROUP BY day
    ) AS present ON present.day = recorded.day
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
    WHERE present.oldest = recorded.compaction
      AND present.newest = recorded.compaction
      AND current.partial_rows = recorded.partial_rows
  )
