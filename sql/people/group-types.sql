-- @name people.group_types
-- @returns type String
-- the types of the project's groups (each group as its newest version, deleted ones left out), ascending
SELECT type
FROM
(
  SELECT argMax((type, deleted), (version, toUInt64(splitByChar('_', _part)[2]))) AS v
  FROM groups
  WHERE project_id = {projectId:String}
  GROUP BY id
)
WHERE v.2 = 0
GROUP BY v.1 AS type
ORDER BY type
