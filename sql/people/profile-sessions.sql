-- @name people.profile_sessions
-- @returns id String, profile_id String, event_count UInt64, screen_view_count UInt64, entry_path String,
--   entry_origin String, exit_path String, exit_origin String, created_at String, ended_at String,
--   referrer String, referrer_name String, referrer_type String, os String, os_version String, browser String,
--   browser_version String, device String, brand String, model String, country String, region String,
--   city String, is_bounce Bool, project_id String, device_id String, duration Int64, utm_medium String,
--   utm_source String, utm_campaign String, utm_content String, utm_term String, revenue Int64, start_ms Int64
-- a profile's sessions (those whose first event is the profile's), newest start first (ties by the session
--   id, descending), from after the keyset on: one row more than the page, which tells whether another follows
-- TRICKY: `sessions` holds partial rows, one per block of events a session arrived in; a session is its rows
-- combined (attributes of its earliest first event, the exit of its latest page view, counts summed). Its
-- visitor is its first event's, so the candidates are the sessions with any partial row of the profile (the
-- block holding the first event names it) and the combined ones are kept when their visitor is the profile.
-- A page after a cursor reads the same rows as the first page: the keyset, not an offset, picks it.
SELECT
  session_id AS id,
  visitor AS profile_id,
  events AS event_count,
  views AS screen_view_count,
  s_entry_path AS entry_path,
  s_entry_origin AS entry_origin,
  s_exit_path AS exit_path,
  s_exit_origin AS exit_origin,
  concat(substring(formatDateTime(started, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS created_at,
  concat(substring(formatDateTime(ended, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS ended_at,
  s_referrer AS referrer,
  s_referrer_name AS referrer_name,
  s_referrer_type AS referrer_type,
  s_os AS os,
  s_os_version AS os_version,
  s_browser AS browser,
  s_browser_version AS browser_version,
  s_device AS device,
  s_brand AS brand,
  s_model AS model,
  s_country AS country,
  s_region AS region,
  s_city AS city,
  toBool(views <= 1) AS is_bounce,
  {projectId:String} AS project_id,
  first_device AS device_id,
  toUnixTimestamp64Milli(ended) - toUnixTimestamp64Milli(started) AS duration,
  s_utm_medium AS utm_medium,
  s_utm_source AS utm_source,
  s_utm_campaign AS utm_campaign,
  s_utm_content AS utm_content,
  s_utm_term AS utm_term,
  session_revenue AS revenue,
  toUnixTimestamp64Milli(started) AS start_ms
FROM
(
  SELECT
    session_id,
    argMin(profile_id, first_event_key) AS visitor,
    argMin(device_id, first_event_key) AS first_device,
    min(started_at) AS started,
    max(ended_at) AS ended,
    toUInt64(sum(event_count)) AS events,
    toUInt64(sum(screen_views)) AS views,
    sum(revenue) AS session_revenue,
    toString(argMin(referrer, first_event_key)) AS s_referrer,
    toString(argMin(referrer_name, first_event_key)) AS s_referrer_name,
    toString(argMin(referrer_type, first_event_key)) AS s_referrer_type,
    toString(argMin(utm_source, first_event_key)) AS s_utm_source,
    toString(argMin(utm_medium, first_event_key)) AS s_utm_medium,
    toString(argMin(utm_campaign, first_event_key)) AS s_utm_campaign,
    toString(argMin(utm_term, first_event_key)) AS s_utm_term,
    toString(argMin(utm_content, first_event_key)) AS s_utm_content,
    toString(argMin(country, first_event_key)) AS s_country,
    toString(argMin(region, first_event_key)) AS s_region,
    toString(argMin(city, first_event_key)) AS s_city,
    toString(argMin(device, first_event_key)) AS s_device,
    toString(argMin(brand, first_event_key)) AS s_brand,
    toString(argMin(model, first_event_key)) AS s_model,
    toString(argMin(browser, first_event_key)) AS s_browser,
    toString(argMin(browser_version, first_event_key)) AS s_browser_version,
    toString(argMin(os, first_event_key)) AS s_os,
    toString(argMin(os_version, first_event_key)) AS s_os_version,
    toString(argMin(entry_origin, first_event_key)) AS s_entry_origin,
    toString(argMin(entry_path, first_event_key)) AS s_entry_path,
    toString(argMax(exit_origin, last_view_key)) AS s_exit_origin,
    toString(argMax(exit_path, last_view_key)) AS s_exit_path
  FROM sessions
  WHERE project_id = {projectId:String}
    AND session_id IN
    (
      SELECT session_id
      FROM sessions
      WHERE project_id = {projectId:String}
        AND profile_id = {profileId:String}
    )
  GROUP BY session_id
  HAVING visitor = {profileId:String}
    AND (toUnixTimestamp64Milli(started), session_id) < ({afterMs:Int64}, {afterId:String})
)
ORDER BY started DESC, session_id DESC
LIMIT {rows:UInt32}
