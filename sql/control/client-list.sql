-- @name control.client-list
-- @returns clients, oldest first, every one when `all` is true, else one project's: id, name, type,
--   project_id, created_at, revoked (never the secret hash)
SELECT id, name, type, project_id, created_at, revoked
FROM api_clients FINAL
WHERE {all:Bool} OR project_id = {projectId:String}
ORDER BY created_at, id
