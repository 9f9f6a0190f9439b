-- @name sessions.sessions_list_newest
-- @returns fragment: a WITH item, `newest`: the keys and the earliest start of the page's sessions among those regrouped
--   from partial rows (sessions/regrouped-sessions.sql), chosen by their start, id and s_<attribute> for each
--   attribute the filters read, kept by the filters and the keyset (after_start, after_id), newest start
--   first (ties: session id descending), one page plus one row
-- Only the columns that choose the page are combined here, over every partial row of the regrouped days;
-- the columns the list shows are combined for the chosen sessions alone (sessions/regrouped-sessions.sql).
,
  (
    SELECT (groupArray(session_key), min(session_start))
    FROM
    (
SELECT
  session_key,
  any(session_id) AS session_id,
  min(started_at) AS session_start/* @attributes */
FROM sessions
WHERE project_id = {projectId:String}
  AND started_at >= {readFrom:DateTime64(3, 'UTC')}
  AND started_at < {readTo:DateTime64(3, 'UTC')}
  AND started_at >= {regroupFrom:DateTime64(3, 'UTC')}
  AND started_at < {regroupTo:DateTime64(3, 'UTC')}
GROUP BY session_key
HAVING session_start >= {start:DateTime64(3, 'UTC')}
  AND session_start < {end:DateTime64(3, 'UTC')}
  AND NOT has({settledDays:Array(Date)}, toDate(session_start))
  /* @session_filters */
  AND (session_start, session_id) < (after_start, after_id)
ORDER BY session_start DESC, session_id DESC
LIMIT {rowsToRead:UInt32}
    )
  ) AS newest
