-- @name insights.sessions_list_regrouped
-- @returns the page's sessions among those regrouped from partial rows (one page plus one row, in no order):
--   the columns of insights/regrouped-sessions.sql, then s_<attribute> for each field asked for and the
--   listed session's visitor id and events
-- In two steps, so that the many fields a listed session shows are combined for one page of sessions, not
-- for every session of the regrouped days: the statement chooses the page first (insights/sessions-list.sql,
-- `newest`: the keys of insights/sessions-list-newest.sql and the earliest of their starts, computed once
-- before the read), then only the chosen sessions' partial rows are combined, as regrouped-sessions.sql
-- combines them.
-- TRICKY: a session's partial rows all start at or after the session's start, so every row of a chosen
-- session lies from `newest.2` on: the read keeps only that end of the sort key's range (bounded by its
-- day too, the key's first time column), and each chosen session is still whole.
SELECT
  any(session_id) AS session_id,
  min(started_at) AS session_start,
  dateDiff('millisecond', min(started_at), max(ended_at)) AS duration_ms,
  sum(screen_views) AS all_views,
  argMin(profile_key, first_event_key) AS visitor_key/* @attributes */
FROM sessions
WHERE project_id = {projectId:String}
  AND started_at >= {readFrom:DateTime64(3, 'UTC')}
  AND started_at < {readTo:DateTime64(3, 'UTC')}
  AND started_at >= {regroupFrom:DateTime64(3, 'UTC')}
  AND started_at < {regroupTo:DateTime64(3, 'UTC')}
  AND toDate(started_at) >= toDate(newest.2)
  AND started_at >= newest.2
  AND has(newest.1, session_key)
GROUP BY session_key
