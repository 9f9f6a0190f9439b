-- @name people.group
-- @returns id String, projectId String, type String, name String, properties Map(String, String),
--   createdAt String, updatedAt String
-- one group as its newest version, or no row for an unknown or deleted id (see groups.sql)
SELECT
  id,
  {projectId:String} AS projectId,
  v.1 AS type,
  v.2 AS name,
  v.3 AS properties,
  concat(substring(formatDateTime(v.4, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS createdAt,
  concat(substring(formatDateTime(fromUnixTimestamp64Milli(toInt64(v.5), 'UTC'), '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00')
    AS updatedAt
FROM
(
  SELECT
    id,
    argMax((type, name, properties, created_at, version, deleted), (version, toUInt64(splitByChar('_', _part)[2]))) AS v
  FROM groups
  WHERE project_id = {projectId:String}
    AND id = {groupId:String}
  GROUP BY id
)
WHERE v.6 = 0
