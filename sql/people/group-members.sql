-- @name people.group_members
-- @returns id String, email String, avatar String, firstName String, lastName String, createdAt String,
--   lastSeenAt String, isExternal Bool, projectId String, groups Array(String), properties Map(String, String),
--   member_count UInt64
-- the profiles whose newest version lists the group, newest created first (ties by id, descending),
--   `memberLimit` of them, each with the count of them all (`member_count`)
-- TRICKY: membership is the newest version's: an older version that listed the group does not count (see
-- profiles.sql for how a profile's versions are read).
SELECT
  id,
  v.3 AS email,
  v.4 AS avatar,
  v.1 AS firstName,
  v.2 AS lastName,
  concat(substring(formatDateTime(v.7, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS createdAt,
  concat(substring(formatDateTime(v.8, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS lastSeenAt,
  v.6 AS isExternal,
  {projectId:String} AS projectId,
  v.9 AS groups,
  v.5 AS properties,
  count() OVER () AS member_count
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
  GROUP BY id
  HAVING has(v.9, {groupId:String})
)
ORDER BY v.7 DESC, id DESC
LIMIT {memberLimit:UInt32}
