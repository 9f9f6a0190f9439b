-- @name control.client-revoke
-- @returns nothing (insert)
-- A newer version of the client's row with revoked = 1; ReplacingMergeTree(updated_at) keeps it.
INSERT INTO api_clients (id, name, type, project_id, secret_hash, created_at, revoked, updated_at)
SELECT id, name, type, project_id, secret_hash, created_at, 1, {now:DateTime64(3, 'UTC')}
FROM api_clients FINAL
WHERE id = {id:UUID}
