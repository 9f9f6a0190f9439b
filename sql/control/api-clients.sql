-- @name control.api_clients
-- @returns id UUID, name String, type Enum8('read' = 1, 'write' = 2, 'root' = 3), project_id String,
--   secret_hash String, revoked UInt8
-- every client (the gateway holds them in memory): id, name, type, project_id, secret_hash, revoked
-- No parameters, so that on the embedded engine it runs beside the data statements, not behind them.
SELECT id, name, type, project_id, secret_hash, revoked
FROM api_clients FINAL
