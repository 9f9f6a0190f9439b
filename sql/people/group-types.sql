-- @name people.group_types
-- @returns type String
-- the types of the project's groups (each group as its newest version, deleted ones left out), ascending
-- The newest versions as FINAL reads them (see groups.sql).
SELECT type
FROM groups FINAL
WHERE project_id = {projectId:String}
  AND deleted = 0
GROUP BY type
ORDER BY type
