-- @name control.client-find
-- @returns id UUID, revoked UInt8
-- the client with this id, or no row: id, revoked
SELECT id, revoked
FROM api_clients FINAL
WHERE id = {id:UUID}
