-- @name admin.export_groups
-- @returns id String, type String, name String, properties Map(String, String), created_at String, version UInt64,
--   deleted UInt8
-- a chunk of the project's groups, each as its newest version (deleted ones too, so an import deletes them
--   again; see people/groups.sql), by id after `afterId`, `rows` of them, in the columns `import --groups`
--   takes (dates ISO 8601, UTC)
SELECT
  id,
  v.1 AS type,
  v.2 AS name,
  v.3 AS properties,
  concat(substring(formatDateTime(v.4, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), 'Z') AS created_at,
  v.5 AS version,
  v.6 AS deleted
FROM
(
  SELECT
    id,
    argMax((type, name, properties, created_at, version, deleted), (version, toUInt64(splitByChar('_', _part)[2]))) AS v
  FROM groups
  WHERE project_id = {projectId:String}
    AND id > {afterId:String}
  GROUP BY id
)
ORDER BY id
LIMIT {rows:UInt32}
