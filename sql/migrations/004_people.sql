-- @migration 004_people
-- People as OpenPanel stores them (its code-migrations 11-add-groups.ts and 16-restructure-profiles.ts):
-- a profile's groups and whether it was identified by the site (`is_external`), and the groups themselves.
-- Identified visitors are what this project's profiles hold, so `is_external` defaults to true.
ALTER TABLE {{table profiles}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS is_external Bool DEFAULT true,
  ADD COLUMN IF NOT EXISTS groups Array(String) DEFAULT [];

{{on_distributed profiles: ADD COLUMN IF NOT EXISTS is_external Bool DEFAULT true, ADD COLUMN IF NOT EXISTS groups Array(String) DEFAULT []}};

-- A group (a company, a team, ...). Each write is a new version; the largest `version` wins and a version
-- with `deleted = 1` removes the group. TRICKY: merges keep old versions until they run, so readers take the
-- newest version per group (argMax), never a row on its own.
CREATE TABLE IF NOT EXISTS {{table groups}} {{on_cluster}}
(
  id String,
  project_id LowCardinality(String),
  type String,
  name String,
  properties Map(String, String),
  created_at DateTime64(3, 'UTC'),
  version UInt64,
  deleted UInt8 DEFAULT 0
)
ENGINE = {{sharded ReplacingMergeTree(version, deleted)}}
ORDER BY (project_id, id);

{{distributed groups cityHash64(project_id, id)}};
