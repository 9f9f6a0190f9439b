-- @name people.profile_events
-- @returns id String, name LowCardinality(String), device_id String, profile_id String, session_id String, project_id LowCardinality(String),
--   created_at String, path String, origin LowCardinality(String), title String, referrer String, referrer_name LowCardinality(String),
--   referrer_type LowCardinality(String), utm_source LowCardinality(String), utm_medium LowCardinality(String), utm_campaign LowCardinality(String), utm_term String,
--   utm_content String, country LowCardinality(String), region LowCardinality(String), city LowCardinality(String), latitude Nullable(Float64),
--   longitude Nullable(Float64), device LowCardinality(String), brand LowCardinality(String), model LowCardinality(String), browser LowCardinality(String),
--   browser_version LowCardinality(String), os LowCardinality(String), os_version LowCardinality(String), duration UInt32, revenue Int64, groups Array(String),
--   properties Map(String, String), sdk_name LowCardinality(String), sdk_version LowCardinality(String)
-- a profile's newest events, newest first (ties by the id text, descending), `eventLimit` of them
-- The ORDER BY repeats the table's sort key, so the engine reads it newest first and stops at the limit.
SELECT
  toString(id) AS id,
  name,
  device_id,
  profile_id,
  session_id,
  project_id,
  concat(substring(formatDateTime(created_at, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS created_at,
  path,
  origin,
  title,
  referrer,
  referrer_name,
  referrer_type,
  utm_source,
  utm_medium,
  utm_campaign,
  utm_term,
  utm_content,
  country,
  region,
  city,
  latitude,
  longitude,
  device,
  brand,
  model,
  browser,
  browser_version,
  os,
  os_version,
  duration,
  revenue,
  groups,
  properties,
  sdk_name,
  sdk_version
FROM
(
  SELECT *
  FROM events
  WHERE project_id = {projectId:String}
    AND profile_id = {profileId:String}
  ORDER BY project_id DESC, toDate(created_at) DESC, created_at DESC, toUInt128(id) DESC
  LIMIT {eventLimit:UInt32}
) AS newest
ORDER BY toUnixTimestamp64Milli(newest.created_at) DESC, toUInt128(newest.id) DESC
