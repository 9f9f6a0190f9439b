-- @name people.profile
-- @returns id String, first_name String, last_name String, email String, avatar String,
--   properties Map(String, String), project_id String, is_external Bool, created_at String, last_seen_at String,
--   groups Array(String)
-- one profile as its newest version (docs/definitions.md, "People"), or no row for an unknown id
-- TRICKY: its versions are read by the sort key's prefix (project, id) and the newest taken as merges and
-- FINAL keep it (see profiles.sql), the same merged or not.
SELECT
  id,
  v.1 AS first_name,
  v.2 AS last_name,
  v.3 AS email,
  v.4 AS avatar,
  v.5 AS properties,
  {projectId:String} AS project_id,
  v.6 AS is_external,
  concat(substring(formatDateTime(v.7, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS created_at,
  concat(substring(formatDateTime(v.8, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS last_seen_at,
  v.9 AS groups
FROM
(
  SELECT
    id,
    argMax(
      (first_name, last_name, email, avatar, properties, is_external, created_at, last_seen_at, groups),
      (last_seen_at, toUInt64(splitByChar('_', _part)[2]))
    ) AS v
  FROM profiles
  WHERE project_id = {projectId:String}
    AND id = {profileId:String}
  GROUP BY id
)
