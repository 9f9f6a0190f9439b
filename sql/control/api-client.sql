-- @name control.api_client
-- @returns zero or one row: id, name, type, project_id, secret_hash, revoked
SELECT id, name, type, project_id, secret_hash, revoked
FROM api_clients FINAL
WHERE id = {id:UUID}
