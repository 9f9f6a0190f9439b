-- @name insights.sessions_list
-- @returns id String, profileId String, startedAt String, endedAt String, start_ms Int64, duration_ms Int64,
--   screen_views UInt64, event_total UInt64, entryOrigin String, entryPath String, exitOrigin String,
--   exitPath String, referrer String, referrerName String, referrerType String, utmSource String, utmMedium String,
--   utmCampaign String, utmTerm String, utmContent String, country String, region String, city String,
--   device String, browser String, os String
-- the window's sessions kept by the filters, newest start first (ties: session id descending), after
--   the keyset (afterMs, afterId), one page plus one row: id, profileId, startedAt and endedAt (ISO 8601
--   with the zone's offset), start_ms, duration_ms, screen_views, event_total and the session's attributes,
--   entry and exit page
-- The sessions come from the sessions wing (queries/sessions/sessions-page.ts): `listed_with` names what they
-- read in the statement's WITH, `listed_sessions` gives their rows, each part cut to the page.
WITH/* @performed_cte */
  fromUnixTimestamp64Milli({afterMs:Int64}, 'UTC') AS after_start,
  {afterId:String} AS after_id,
  /* @listed_with */
SELECT
  session_id AS id,
  visitor_id AS profileId,
  concat(
    substring(formatDateTime(session_start, '%Y-%m-%dT%H:%i:%S.%f', {tz:String}), 1, 23),
    substring(formatDateTime(session_start, '%z', {tz:String}), 1, 3), ':',
    substring(formatDateTime(session_start, '%z', {tz:String}), 4, 2)
  ) AS startedAt,
  concat(
    substring(formatDateTime(session_start + toIntervalMillisecond(duration_ms), '%Y-%m-%dT%H:%i:%S.%f', {tz:String}), 1, 23),
    substring(formatDateTime(session_start + toIntervalMillisecond(duration_ms), '%z', {tz:String}), 1, 3), ':',
    substring(formatDateTime(session_start + toIntervalMillisecond(duration_ms), '%z', {tz:String}), 4, 2)
  ) AS endedAt,
  toUnixTimestamp64Milli(session_start) AS start_ms,
  duration_ms,
  all_views AS screen_views,
  all_events AS event_total,
  s_entry_origin AS entryOrigin,
  s_entry_path AS entryPath,
  s_exit_origin AS exitOrigin,
  s_exit_path AS exitPath,
  s_referrer AS referrer,
  s_referrer_name AS referrerName,
  s_referrer_type AS referrerType,
  s_utm_source AS utmSource,
  s_utm_medium AS utmMedium,
  s_utm_campaign AS utmCampaign,
  s_utm_term AS utmTerm,
  s_utm_content AS utmContent,
  s_country AS country,
  s_region AS region,
  s_city AS city,
  s_device AS device,
  s_browser AS browser,
  s_os AS os
FROM
(
  /* @listed_sessions */
)
ORDER BY session_start DESC, session_id DESC
LIMIT {rowsToRead:UInt32}
