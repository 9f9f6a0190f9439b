-- @name people.groups
-- @returns id String, projectId String, type String, name String, properties Map(String, String),
--   createdAt String, updatedAt String, created_ms Int64
-- the project's groups kept by `type` (all when empty) and `search` (a case-insensitive substring of the name
--   or id; all when empty), each as its newest version unless that version deletes it, newest created first
--   (ties by id, descending), from after the keyset on: one row more than the page
-- TRICKY: groups is a ReplacingMergeTree(version, deleted) whose merges keep old versions until they run; a
-- group is its version with the largest `version`, of equal ones the one written last (the part with the
-- later block, as for profiles: people/profiles.sql), read with argMax, the same merged or not; a newest
-- version with `deleted = 1` removes the group.
SELECT
  id,
  {projectId:String} AS projectId,
  v.1 AS type,
  v.2 AS name,
  v.3 AS properties,
  concat(substring(formatDateTime(v.4, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS createdAt,
  concat(substring(formatDateTime(fromUnixTimestamp64Milli(toInt64(v.5), 'UTC'), '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00')
    AS updatedAt,
  toUnixTimestamp64Milli(v.4) AS created_ms
FROM
(
  SELECT
    id,
    argMax((type, name, properties, created_at, version, deleted), (version, toUInt64(splitByChar('_', _part)[2]))) AS v
  FROM groups
  WHERE project_id = {projectId:String}
  GROUP BY id
)
WHERE v.6 = 0
  AND ({type:String} = '' OR v.1 = {type:String})
  AND ({search:String} = '' OR positionCaseInsensitiveUTF8(v.2, {search:String}) > 0 OR positionCaseInsensitiveUTF8(id, {search:String}) > 0)
  AND (created_ms, id) < ({afterMs:Int64}, {afterId:String})
ORDER BY created_ms DESC, id DESC
LIMIT {rows:UInt32}
