-- @name admin.migrations-applied
-- @returns name String
-- one row per migration already applied: name
SELECT name
FROM quarry_migrations FINAL
