-- @name control.project
-- @returns zero or one row: id, name, timezone
SELECT id, name, timezone
FROM projects FINAL
WHERE id = {id:String}
