-- @name control.project-find
-- @returns id String, name String, timezone String, created_at DateTime64(3, 'UTC')
-- the project with this id, or no row: id, name, timezone, created_at
SELECT id, name, timezone, created_at
FROM projects FINAL
WHERE id = {id:String}
