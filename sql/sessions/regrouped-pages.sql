-- @name sessions.regrouped_pages
-- @returns fragment: a LEFT JOIN with each session with a page view from the first regrouped day to regroupTo, as
--   `viewed`: session_id, page_origins, page_paths, page_views (each page it viewed and its views of it), as
--   sessions_settled holds them (migrations/002_derived_tables.sql) but for page views only
-- The pages of the sessions regrouped from partial rows, joined to them (LEFT: a session without a page
-- view has none). Every event of a session that starts on a regrouped day lies in that range, from the
-- first regrouped day on: regroupFrom is the lookback (start - readFrom) before that day, so the events
-- of that lookback, whose sessions start before it, are not read.
LEFT JOIN
  (
SELECT session_id, groupArray(origin) AS page_origins, groupArray(path) AS page_paths, groupArray(views) AS page_views
FROM
(
  SELECT session_id, origin, path, toUInt32(count()) AS views
  FROM events
  WHERE project_id = {projectId:String}
    AND name = 'screen_view'
    AND created_at >= {start:DateTime64(3, 'UTC')}
    AND created_at < {readTo:DateTime64(3, 'UTC')}
    AND created_at >= addSeconds({regroupFrom:DateTime64(3, 'UTC')}, dateDiff('second', {readFrom:DateTime64(3, 'UTC')}, {start:DateTime64(3, 'UTC')}))
    AND created_at < {regroupTo:DateTime64(3, 'UTC')}
  GROUP BY session_id, origin, path
)
GROUP BY session_id
  ) AS viewed USING (session_id)
