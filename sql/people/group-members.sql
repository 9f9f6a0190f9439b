-- @name people.group_members
-- @returns id String, email String, avatar String, firstName String, lastName String, createdAt String,
--   lastSeenAt String, isExternal Bool, projectId String, groups Array(String), properties Map(String, String),
--   member_count UInt64
-- the profiles whose newest version lists the group, newest created first (ties by id, descending),
--   `memberLimit` of them, each with the count of them all (`member_count`)
-- TRICKY: membership is the newest version's: an older version that listed the group does not count. The
-- newest version is the one FINAL reads (see profiles.sql); every profile of the project is read either way.
-- Dates are formatted for the page's rows only.
SELECT
  id,
  email,
  avatar,
  first_name AS firstName,
  last_name AS lastName,
  concat(substring(formatDateTime(created, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS createdAt,
  concat(substring(formatDateTime(last_seen, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS lastSeenAt,
  is_external AS isExternal,
  {projectId:String} AS projectId,
  groups,
  properties,
  member_count
FROM
(
  SELECT
    id, email, avatar, first_name, last_name, is_external, groups, properties,
    profiles.created_at AS created,
    profiles.last_seen_at AS last_seen,
    count() OVER () AS member_count
  FROM profiles FINAL
  WHERE project_id = {projectId:String}
    AND has(groups, {groupId:String})
  ORDER BY created DESC, id DESC
  LIMIT {memberLimit:UInt32}
)
ORDER BY created DESC, id DESC
