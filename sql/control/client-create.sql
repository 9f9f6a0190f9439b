-- @name control.client-create
-- @returns nothing (insert)
-- One API client row: the secret only as its scrypt hash (server/secrets.ts).
INSERT INTO api_clients (id, name, type, project_id, secret_hash, created_at, revoked, updated_at)
SELECT {id:UUID}, {name:String}, {type:String}, {projectId:String}, {secretHash:String}, {now:DateTime64(3, 'UTC')}, 0, {now:DateTime64(3, 'UTC')}
