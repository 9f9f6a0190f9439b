-- @name admin.migrations-tracked
-- @returns tracked UInt8
-- one row: tracked, 1 when the database has the table of applied migrations (quarry_migrations)
SELECT toUInt8(count() > 0) AS tracked
FROM system.tables
WHERE database = currentDatabase()
  AND name = 'quarry_migrations'
