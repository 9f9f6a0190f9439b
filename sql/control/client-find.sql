-- @name control.client-find
-- @returns the client with this id, or no row: id, revoked
SELECT id, revoked
FROM api_clients FINAL
WHERE id = {id:UUID}
