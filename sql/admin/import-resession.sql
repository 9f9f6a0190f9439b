-- @name admin.import-resession
-- @returns nothing (insert)
-- The partial rows of the sessions admin/import-resession-find.sql found, rebuilt from all their stored
-- events as one block: the select of sessions_mv (migrations/002_sessions.sql, as 022_session_exits.sql extends it) over those events, with the
-- same columns in the same order (import.test.ts compares the rows it rebuilds with the rows the view wrote).
INSERT INTO sessions
WITH bitOr(
  bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
  toUInt256(toUInt128(id))
) AS event_key
SELECT
  project_id,
  session_id,
  min(created_at) AS started_at,
  min(event_key) AS first_event_key,
  max(created_at) AS ended_at,
  toUInt32(countIf(name = 'screen_view')) AS screen_views,
  toUInt32(count()) AS event_count,
  sum(revenue) AS revenue,
  argMin(profile_id, event_key) AS profile_id,
  argMin(device_id, event_key) AS device_id,
  argMin(origin, event_key) AS entry_origin,
  argMin(path, event_key) AS entry_path,
  argMin(referrer, event_key) AS referrer,
  argMin(referrer_name, event_key) AS referrer_name,
  argMin(referrer_type, event_key) AS referrer_type,
  argMin(utm_source, event_key) AS utm_source,
  argMin(utm_medium, event_key) AS utm_medium,
  argMin(utm_campaign, event_key) AS utm_campaign,
  argMin(utm_term, event_key) AS utm_term,
  argMin(utm_content, event_key) AS utm_content,
  argMin(country, event_key) AS country,
  argMin(region, event_key) AS region,
  argMin(city, event_key) AS city,
  argMin(device, event_key) AS device,
  argMin(brand, event_key) AS brand,
  argMin(model, event_key) AS model,
  argMin(browser, event_key) AS browser,
  argMin(browser_version, event_key) AS browser_version,
  argMin(os, event_key) AS os,
  argMin(os_version, event_key) AS os_version,
  maxIf(event_key, name = 'screen_view') AS last_view_key,
  argMaxIf(origin, event_key, name = 'screen_view') AS exit_origin,
  argMaxIf(path, event_key, name = 'screen_view') AS exit_path
FROM events
WHERE project_id = {projectId:String}
  AND session_id IN (SELECT session_id FROM {found:Identifier})
GROUP BY project_id, session_id
