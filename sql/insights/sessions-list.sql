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
-- One row per session, combined: settled days from sessions_settled (the compaction their record names,
-- see insights/window-sessions.sql), the others regrouped from their partial rows
-- (insights/regrouped-sessions.sql over the page's chosen sessions, in UNION ALL; left out when every day
-- of the window up to the keyset is settled, as there is no partial row to read). Each part is cut to the
-- page before they meet: ordered by sessions_settled's sort key (project_id, session_start, session_id),
-- ClickHouse reads it backwards from the keyset and stops after the page, so a page deep in the window
-- costs what the first one does; the regrouped part's page (`newest`, insights/sessions-list-newest.sql) is chosen before
-- either part is read, and only its sessions' fields are combined.
-- When the regrouped days all come after the settled ones (the open edge) and the regrouped page is
-- full, every settled session starts after the page's last one in the list's order: the settled part is
-- then not read (its condition on `newest` is a constant, false, once `newest` is computed).
WITH/* @performed_cte */
  CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS settled_compactions,
  fromUnixTimestamp64Milli({afterMs:Int64}, 'UTC') AS after_start,
  {afterId:String} AS after_id/* @newest_sessions */
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
  SELECT *
  FROM
  (
    SELECT
      session_id,
      session_start,
      duration_ms,
      all_views,
      visitor_key/* @settled_attributes */,
      visitor_id,
      all_events
    FROM sessions_settled
    WHERE project_id = {projectId:String}
      AND session_start >= {start:DateTime64(3, 'UTC')}
      AND session_start < {end:DateTime64(3, 'UTC')}
      AND day >= {firstDay:Date}
      AND day <= {lastDay:Date}
      AND compaction IN (SELECT arrayJoin(settled_compactions))
      AND session_start <= after_start
      AND (session_start, session_id) < (after_start, after_id)
      /* @session_filters */
    ORDER BY session_start DESC, session_id DESC
    LIMIT {rowsToRead:UInt32}
  )/* @regrouped_sessions */
)
ORDER BY session_start DESC, session_id DESC
LIMIT {rowsToRead:UInt32}
