-- @name control.api_clients
-- @returns every client (the gateway holds them in memory): id, name, type, project_id, secret_hash, revoked
-- No parameters, so that on the embedded engine it runs beside the data statements, not behind them.
SELECT id, name, type, project_id, secret_hash, revoked
FROM api_clients FINAL
