-- @name control.projects
-- @returns id String, name String, timezone String
-- every project (the gateway holds them in memory): id, name, timezone
-- No parameters, so that on the embedded engine it runs beside the data statements, not behind them.
SELECT id, name, timezone
FROM projects FINAL
