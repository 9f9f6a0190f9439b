-- @name export.profiles
-- @returns id String, firstName String, lastName String, email String, avatar String,
--   properties Map(String, String), createdAt String, lastSeenAt String
-- the latest version (largest last_seen_at) of each listed profile: id, firstName, lastName,
--   email, avatar, properties, createdAt, lastSeenAt (ISO 8601, UTC); the list is a bound array or the
--   profile ids of an export chunk
SELECT
  id,
  argMax(first_name, last_seen_at) AS firstName,
  argMax(last_name, last_seen_at) AS lastName,
  argMax(email, last_seen_at) AS email,
  argMax(avatar, last_seen_at) AS avatar,
  argMax(profiles.properties, last_seen_at) AS properties,
  concat(substring(formatDateTime(min(created_at), '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS createdAt,
  concat(substring(formatDateTime(max(last_seen_at), '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS lastSeenAt
FROM profiles
WHERE project_id = {projectId:String}
  AND id IN /* @ids */
GROUP BY id
