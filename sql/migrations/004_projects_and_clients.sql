-- @migration 004_projects_and_clients
-- Small control tables, a full copy on every node. Each change is a new version (`updated_at` wins).
CREATE TABLE IF NOT EXISTS projects {{on_cluster}}
(
  id String,
  name String,
  timezone String,
  created_at DateTime64(3, 'UTC'),
  updated_at DateTime64(3, 'UTC')
)
ENGINE = {{everywhere ReplacingMergeTree(updated_at)}}
ORDER BY id;

CREATE TABLE IF NOT EXISTS api_clients {{on_cluster}}
(
  id UUID,
  name String,
  type Enum8('read' = 1, 'write' = 2, 'root' = 3),
  project_id String,
  secret_hash String,
  created_at DateTime64(3, 'UTC'),
  revoked UInt8,
  updated_at DateTime64(3, 'UTC')
)
ENGINE = {{everywhere ReplacingMergeTree(updated_at)}}
ORDER BY id;
