-- @migration 003_profiles
-- Identified visitors. Each write is a new version; the newest `last_seen_at` wins.
CREATE TABLE IF NOT EXISTS {{table profiles}} {{on_cluster}}
(
  id String,
  project_id LowCardinality(String),
  first_name String,
  last_name String,
  email String,
  avatar String,
  properties Map(String, String),
  created_at DateTime64(3, 'UTC'),
  last_seen_at DateTime64(3, 'UTC')
)
ENGINE = {{sharded ReplacingMergeTree(last_seen_at)}}
ORDER BY (project_id, id);

{{distributed profiles cityHash64(project_id, id)}};
