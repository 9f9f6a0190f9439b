-- @name control.project-list
-- @returns every project, by id: id, name, timezone, created_at
SELECT id, name, timezone, created_at
FROM projects FINAL
ORDER BY id
