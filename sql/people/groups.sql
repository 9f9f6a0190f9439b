-- @name people.groups
-- @returns id String, projectId String, type String, name String, properties Map(String, String),
--   createdAt String, updatedAt String, created_ms Int64
-- the project's groups kept by `type` (all when empty) and `search` (a case-insensitive substring of the name
--   or id; all when empty), each as its newest version unless that version deletes it, newest created first
--   (ties by id, descending), from after the keyset on: one row more than the page
-- TRICKY: groups is a ReplacingMergeTree(version, deleted) whose merges keep old versions until they run; a
-- group is its version with the largest `version`, of equal ones the one written last: what merges keep and
-- FINAL reads, so the list reads FINAL, as the profile list does (people/profiles.sql: the project's every
-- group is read either way, and FINAL reads them without copying each version). The conditions apply to the
-- version FINAL keeps (with FINAL, WHERE is not moved before the merge); a newest version with `deleted = 1`
-- removes the group. Dates are formatted for the page's rows only.
SELECT
  id,
  {projectId:String} AS projectId,
  type,
  name,
  properties,
  concat(substring(formatDateTime(created, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS createdAt,
  concat(substring(formatDateTime(fromUnixTimestamp64Milli(toInt64(version), 'UTC'), '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00')
    AS updatedAt,
  created_ms
FROM
(
  SELECT id, type, name, properties, groups.created_at AS created, version, toUnixTimestamp64Milli(groups.created_at) AS created_ms
  FROM groups FINAL
  WHERE project_id = {projectId:String}
    AND deleted = 0
    AND ({type:String} = '' OR type = {type:String})
    AND ({search:String} = '' OR positionCaseInsensitiveUTF8(name, {search:String}) > 0 OR positionCaseInsensitiveUTF8(id, {search:String}) > 0)
    AND (created_ms, id) < ({afterMs:Int64}, {afterId:String})
  ORDER BY created_ms DESC, id DESC
  LIMIT {rows:UInt32}
)
ORDER BY created_ms DESC, id DESC
