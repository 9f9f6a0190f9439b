-- @name control.api_client
-- @returns zero or one row: id, name, type, project_id, secret_hash, revoked
SELECT toString(id) AS id, name, toString(type) AS type, project_id, secret_hash, revoked
FROM api_clients FINAL
WHERE id = {id:UUID}
