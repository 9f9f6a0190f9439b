-- @migration 005_settled_sessions
-- Sessions of settled days, combined: one row per session (its start, duration, page views, visitor key and
-- the attributes of its first event, as insights/window-sessions.sql combines partial rows), so that a
-- question reads one row per session for settled time and regroups partial rows only at the open edge.
-- A compaction (server/admin/compact.ts) builds one UTC day (the sessions that start in it) from the
-- partial rows of its read range, [day - lookback, day + 1 day + lookback), and swaps the day's partition
-- in whole; `session_compactions` records, per project, how many partial rows that range held. TRICKY:
-- `sessions` rows are only ever added, so a day is still exact while its range holds as many rows as
-- recorded; a late event adds a row, and the readers regroup that day again until the next compaction.
CREATE TABLE IF NOT EXISTS {{table sessions_settled}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  session_id String,
  session_start DateTime64(3, 'UTC'),
  duration_ms Int64,
  all_views UInt64,
  -- The visitor (profile_id) as the 128-bit SipHash that uniqExact keeps of a string: the same count, read
  -- as 16 bytes a session instead of a string hashed on every read.
  visitor_key UInt128,
{{session_fields combined_columns}}
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY day
ORDER BY (project_id, session_start, session_id);

{{distributed sessions_settled cityHash64(project_id, session_id)}};

CREATE TABLE IF NOT EXISTS {{table session_compactions}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  lookback_seconds UInt32,
  partial_rows UInt64
)
ENGINE = {{sharded ReplacingMergeTree(compaction)}}
ORDER BY (project_id, day, lookback_seconds);

{{distributed session_compactions cityHash64(project_id)}};

-- Where a compaction builds a day before swapping it into sessions_settled (same structure and keys).
CREATE TABLE IF NOT EXISTS {{table sessions_settled_stage}} {{on_cluster}} AS {{table sessions_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY day
ORDER BY (project_id, session_start, session_id);
