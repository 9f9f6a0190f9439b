-- @name admin.export_profiles
-- @returns id String, first_name String, last_name String, email String, avatar String,
--   properties Map(String, String), is_external Bool, groups Array(String), created_at String, last_seen_at String
-- a chunk of the project's profiles, each as its newest version (see people/profile.sql), by id after
--   `afterId`, `rows` of them, in the columns `import --profiles` takes (dates ISO 8601, UTC)
SELECT
  id,
  v.1 AS first_name,
  v.2 AS last_name,
  v.3 AS email,
  v.4 AS avatar,
  v.5 AS properties,
  v.6 AS is_external,
  v.9 AS groups,
  concat(substring(formatDateTime(v.7, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), 'Z') AS created_at,
  concat(substring(formatDateTime(v.8, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), 'Z') AS last_seen_at
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
    AND id > {afterId:String}
  GROUP BY id
)
ORDER BY id
LIMIT {rows:UInt32}
