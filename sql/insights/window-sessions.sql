-- @name insights.window_sessions
-- @returns per session that starts in the window and passes the session-attribute filters (event-field
--   filters join on after, see session-events.sql): session_id, session_start,
--   duration_ms, all_views, visitor_key (see migrations/005_settled_sessions.sql), and s_<attribute> for
--   each attribute asked for
-- Settled days come combined from sessions_settled (migrations/005_settled_sessions.sql): a UTC day of
-- the window counts as settled when the rows in the table are all of its last recorded compaction and
-- its read range [day - lookback, day + 1 day + lookback) still holds as many partial rows as that
-- compaction saw. Every other day (the open edge, a day a late event changed, one never compacted) is
-- combined here from its partial rows (see migrations/002_sessions.sql): earliest start, latest end,
-- all page views, and the attributes of the earliest first event (ties by the first event's id text).
-- TRICKY: only rows from the first such day's read range to the last one's are grouped. That holds every
-- row of a session starting on such a day, so a kept session is whole; a session cut at either end
-- starts, as grouped, on a settled day or outside the window, and is left out.
WITH
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
      SELECT day, min(compaction) AS oldest, max(compaction) AS newest
      FROM sessions_settled
      WHERE project_id = {projectId:String}
        AND day >= {firstDay:Date}
        AND day <= {lastDay:Date}
      GROUP BY day
    ) AS present ON present.day = recorded.day
    INNER JOIN
    (
      -- Counted by the hour, then each hour for every day whose read range holds it: the lookback is
      -- whole hours, so every row of an hour lies in the same days' ranges.
      SELECT toDate(dayNumber) AS day, sum(hour_rows) AS partial_rows
      FROM
      (
        SELECT toStartOfHour(started_at) AS hour, count() AS hour_rows
        FROM sessions
        WHERE project_id = {projectId:String}
          AND started_at >= {countFrom:DateTime64(3, 'UTC')}
          AND started_at < {countTo:DateTime64(3, 'UTC')}
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
  ) AS settled_days,
  arrayFilter(
    day -> NOT has(settled_days, day),
    arrayMap(dayNumber -> toDate(dayNumber), range(toUInt32({firstDay:Date}), toUInt32({lastDay:Date}) + 1))
  ) AS regrouped_days,
  toDateTime64(arrayMin(regrouped_days), 3, 'UTC') - toIntervalSecond({lookbackSeconds:UInt32}) AS regroup_from,
  if(empty(regrouped_days), regroup_from, toDateTime64(arrayMax(regrouped_days), 3, 'UTC') + toIntervalDay(1) + toIntervalSecond({lookbackSeconds:UInt32})) AS regroup_to
SELECT *
FROM
(
  SELECT
    session_id,
    session_start,
    duration_ms,
    all_views,
    visitor_key/* @settled_attributes */
  FROM sessions_settled
  WHERE project_id = {projectId:String}
    AND session_start >= {start:DateTime64(3, 'UTC')}
    AND session_start < {end:DateTime64(3, 'UTC')}
    AND day IN (SELECT arrayJoin(settled_days))
    /* @session_filters */

  UNION ALL

  SELECT
    session_id,
    min(started_at) AS session_start,
    dateDiff('millisecond', min(started_at), max(ended_at)) AS duration_ms,
    sum(screen_views) AS all_views,
    reinterpretAsUInt128(sipHash128(argMin(profile_id, first_event_key))) AS visitor_key/* @attributes */
  FROM sessions
  WHERE project_id = {projectId:String}
    AND started_at >= {readFrom:DateTime64(3, 'UTC')}
    AND started_at < {readTo:DateTime64(3, 'UTC')}
    AND started_at >= regroup_from
    AND started_at < regroup_to
  GROUP BY session_id
  HAVING session_start >= {start:DateTime64(3, 'UTC')}
    AND session_start < {end:DateTime64(3, 'UTC')}
    AND NOT has(settled_days, toDate(session_start))
    /* @session_filters */
)
