-- @name control.client-list
-- @returns id UUID, name String, type Enum8('read' = 1, 'write' = 2, 'root' = 3), project_id String,
--   created_at DateTime64(3, 'UTC'), revoked UInt8
-- clients, oldest first, every one when `all` is true, else one project's: id, name, type,
--   project_id, created_at, revoked (never the secret hash)
SELECT id, name, type, project_id, created_at, revoked
FROM api_clients FINAL
WHERE {all:Bool} OR project_id = {projectId:String}
ORDER BY created_at, id
