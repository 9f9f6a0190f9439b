-- @migration 017_session_rollup
-- Settled sessions rolled up per breakdown (queries/core/registry.ts, DIMENSIONS), value and hour of their
-- start: a breakdown without filters whose window starts and ends on whole hours reads these instead of a
-- row per session (insights/dimension-rollup.sql; on 10M events, 30-day country on the raw engine:
-- 57.5 -> 37.3 ms, the same rows). Built by the same compaction from the day's sessions_settled rows
-- (admin/compact-session-rollup-build.sql), added to its month by (day, compaction) like them, and read by
-- the compaction its record names, as they are (insights/settled-days.sql).
-- Every day is compacted again (session_compactions emptied), which builds the rollup; until then
-- questions regroup partial rows, exactly.
CREATE TABLE IF NOT EXISTS {{table session_rollup}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  -- The breakdown's name, and its prefix (or '') and value as the session's s_ columns hold them.
  dimension LowCardinality(String),
  hour DateTime('UTC'),
  prefix LowCardinality(String),
  name String,
  sessions UInt64,
  views UInt64,
  bounced UInt64,
  duration_ms Int64
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, dimension, hour, prefix, name);

{{distributed session_rollup cityHash64(project_id)}};

-- Where a compaction builds a day before adding it to session_rollup (same structure and keys).
CREATE TABLE IF NOT EXISTS {{table session_rollup_stage}} {{on_cluster}} AS {{table session_rollup}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(day)
ORDER BY (project_id, dimension, hour, prefix, name);

{{distributed session_rollup_stage cityHash64(project_id)}};

TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};
