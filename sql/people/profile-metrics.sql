-- @name people.profile_metrics
-- @returns firstSeen Nullable(String), lastSeen Nullable(String), sessions UInt64, screenViews UInt64,
--   totalEvents UInt64, conversionEvents UInt64, uniqueDaysActive UInt64, avgSessionDurationMin Float64,
--   p90SessionDurationMin Float64, avgEventsPerSession Nullable(Float64), avgTimeBetweenSessionsSec Float64,
--   bounceRate Float64, revenue Int64
-- one row: a profile's metrics (docs/definitions.md, "People"): its newest version's first and last seen
--   (null without a profile row), counts over its events, and over its sessions (those whose first event is
--   the profile's) their count, durations, bounces and the mean time between their starts
-- TRICKY: `sessions` holds partial rows; each session is its rows combined before it is counted, and its
-- visitor is its first event's (see profile-sessions.sql).
SELECT
  if(seen.known, concat(substring(formatDateTime(seen.created, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00'), NULL)
    AS firstSeen,
  if(seen.known, concat(substring(formatDateTime(seen.last_seen, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00'), NULL)
    AS lastSeen,
  visits.count AS sessions,
  activity.views AS screenViews,
  activity.total AS totalEvents,
  activity.conversions AS conversionEvents,
  activity.days AS uniqueDaysActive,
  round(visits.mean_ms / 60000, 2) AS avgSessionDurationMin,
  round(visits.p90_ms / 60000, 2) AS p90SessionDurationMin,
  if(visits.count = 0, NULL, round(activity.total / visits.count, 2)) AS avgEventsPerSession,
  if(visits.count <= 1, 0, round((visits.last_start_ms - visits.first_start_ms) / 1000 / (visits.count - 1), 1))
    AS avgTimeBetweenSessionsSec,
  if(visits.count = 0, 0, round(100 * visits.bounces / visits.count, 2)) AS bounceRate,
  activity.revenue AS revenue
FROM
(
  SELECT
    count() > 0 AS known,
    argMax((created_at, last_seen_at), (last_seen_at, toUInt64(splitByChar('_', _part)[2]))) AS version,
    version.1 AS created,
    version.2 AS last_seen
  FROM profiles
  WHERE project_id = {projectId:String}
    AND id = {profileId:String}
) AS seen
CROSS JOIN
(
  SELECT
    countIf(name = 'screen_view') AS views,
    count() AS total,
    countIf(name NOT IN ('screen_view', 'session_start', 'session_end')) AS conversions,
    uniqExact(toDate(created_at, 'UTC')) AS days,
    sum(revenue) AS revenue
  FROM events
  WHERE project_id = {projectId:String}
    AND profile_id = {profileId:String}
) AS activity
CROSS JOIN
(
  SELECT
    count() AS count,
    countIf(screen_views <= 1) AS bounces,
    if(countIf(duration_ms > 0) = 0, 0, avgIf(duration_ms, duration_ms > 0)) AS mean_ms,
    if(countIf(duration_ms > 0) = 0, 0, quantileExactInclusiveIf(0.9)(duration_ms, duration_ms > 0)) AS p90_ms,
    min(start_ms) AS first_start_ms,
    max(start_ms) AS last_start_ms
  FROM
  (
    SELECT
      argMin(profile_id, first_event_key) AS visitor,
      sum(screen_views) AS screen_views,
      toUnixTimestamp64Milli(min(started_at)) AS start_ms,
      toUnixTimestamp64Milli(max(ended_at)) - start_ms AS duration_ms
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
  )
) AS visits
