-- @name admin.compact-build
-- @returns nothing (insert)
-- The sessions that start in one UTC day, combined from the partial rows of its read range exactly as
-- insights/window-sessions.sql combines them (by session_key): earliest start, latest end, all page views,
-- the attributes of the earliest first event (ties by the first event's id text), the exit page of the latest
-- page view; and the session's pages (migrations/010_session_pages.sql) from the events of the read range,
-- which hold all of its events.
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
    argMin(referrer, first_event_key) AS s_referrer,
    argMin(referrer_name, first_event_key) AS s_referrer_name,
    argMin(referrer_type, first_event_key) AS s_referrer_type,
    argMin(utm_source, first_event_key) AS s_utm_source,
    argMin(utm_medium, first_event_key) AS s_utm_medium,
    argMin(utm_campaign, first_event_key) AS s_utm_campaign,
    argMin(utm_term, first_event_key) AS s_utm_term,
    argMin(utm_content, first_event_key) AS s_utm_content,
    argMin(country, first_event_key) AS s_country,
    argMin(region, first_event_key) AS s_region,
    argMin(city, first_event_key) AS s_city,
    argMin(device, first_event_key) AS s_device,
    argMin(brand, first_event_key) AS s_brand,
    argMin(model, first_event_key) AS s_model,
    argMin(browser, first_event_key) AS s_browser,
    argMin(browser_version, first_event_key) AS s_browser_version,
    argMin(os, first_event_key) AS s_os,
    argMin(os_version, first_event_key) AS s_os_version,
    argMin(entry_origin, first_event_key) AS s_entry_origin,
    argMin(entry_path, first_event_key) AS s_entry_path,
    -- The latest page view of all its partial rows (migrations/022_session_exits.sql).
    argMax(exit_origin, last_view_key) AS s_exit_origin,
    argMax(exit_path, last_view_key) AS s_exit_path,
    -- What the sessions list shows besides (migrations/023_session_list.sql).
    argMin(profile_id, first_event_key) AS s_profile_id,
    sum(event_count) AS all_events
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
