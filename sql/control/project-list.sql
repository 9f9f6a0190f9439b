-- @name control.project-list
-- @returns id String, name String, timezone String, created_at DateTime64(3, 'UTC')
-- every project, by id: id, name, timezone, created_at
SELECT id, name, timezone, created_at
FROM projects FINAL
ORDER BY id
