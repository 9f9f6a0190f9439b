-- @name control.project-find
-- @returns the project with this id, or no row: id, name, timezone, created_at
SELECT id, name, timezone, created_at
FROM projects FINAL
WHERE id = {id:String}
