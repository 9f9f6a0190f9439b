-- @name admin.compact-build
-- @returns nothing (insert)
-- The sessions that start in one UTC day, combined from the partial rows of its read range exactly as
-- sessions/window-sessions.sql combines them (by session_key): earliest start, latest end, all page views,
-- and every session field of the registry's list (queries/sessions/session-fields.ts); and the session's pages
-- (migrations/002_derived_tables.sql) from the events of the read range, which hold all of its events.
INSERT INTO sessions_settled_stage
/* @job */
SELECT
  combined.*,
  arrayMap(page -> page.1, pages.page_list),
  arrayMap(page -> page.2, pages.page_list),
  arrayMap(page -> page.3, pages.page_list)
FROM
(
  SELECT
    project_id,
    job_day AS day,
    job_compaction AS compaction,
    any(session_id) AS session_id,
    min(started_at) AS session_start,
    dateDiff('millisecond', min(started_at), max(ended_at)) AS duration_ms,
    sum(screen_views) AS all_views,
    argMin(profile_key, first_event_key) AS visitor_key,
    -- What the sessions list shows besides its fields: its visitor's id as text, and its events.
    argMin(profile_id, first_event_key) AS visitor_id,
    sum(event_count) AS all_events/* @attributes */
  FROM sessions
  WHERE started_at >= job_read_from
    AND started_at < job_read_to
  GROUP BY project_id, session_key
  HAVING toDate(session_start) = job_day
) AS combined
LEFT JOIN
(
  -- One array of tuples, split above: the three lists stay in the same order.
  SELECT project_id, session_id, groupArray((origin, path, page_view_count)) AS page_list
  FROM
  (
    SELECT project_id, session_id, origin, path, toUInt32(countIf(name = 'screen_view')) AS page_view_count
    FROM events
    WHERE created_at >= job_read_from
      AND created_at < job_read_to
    GROUP BY project_id, session_id, origin, path
  )
  GROUP BY project_id, session_id
) AS pages ON pages.project_id = combined.project_id AND pages.session_id = combined.session_id
