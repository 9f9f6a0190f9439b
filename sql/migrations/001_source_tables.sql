-- @migration 001_source_tables
-- The source tables: events, the partial sessions its view writes, profiles, projects and API clients.
-- Everything else is derived from these (002_derived_tables.sql) and can be rebuilt from them. This file
-- is the baseline of the migrations before it (squashed; their reasons are kept here, their figures in
-- docs/measurements.md).

-- The source of truth: one row per tracked event. One project's time range is a contiguous key range;
-- the id ends the key so newest-first keyset pages (ties by id text) read in key order. TRICKY: the UUID
-- type compares its second half first; toUInt128(id) orders like the id text.
CREATE TABLE IF NOT EXISTS {{table events}} {{on_cluster}}
(
  id UUID,
  project_id LowCardinality(String),
  name LowCardinality(String),
  device_id String,
  profile_id String,
  session_id String,
  created_at DateTime64(3, 'UTC'),
  path String,
  origin LowCardinality(String),
  title String,
  referrer String,
  referrer_name LowCardinality(String),
  referrer_type LowCardinality(String),
  utm_source LowCardinality(String),
  utm_medium LowCardinality(String),
  utm_campaign LowCardinality(String),
  utm_term String,
  utm_content String,
  country LowCardinality(String),
  region LowCardinality(String),
  city LowCardinality(String),
  latitude Nullable(Float64),
  longitude Nullable(Float64),
  device LowCardinality(String),
  brand LowCardinality(String),
  model LowCardinality(String),
  browser LowCardinality(String),
  browser_version LowCardinality(String),
  os LowCardinality(String),
  os_version LowCardinality(String),
  duration UInt32,
  revenue Int64,
  groups Array(String),
  properties Map(String, String),
  sdk_name LowCardinality(String),
  sdk_version LowCardinality(String),
  imported_at Nullable(DateTime64(3, 'UTC'))
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(created_at)
ORDER BY (project_id, toDate(created_at), created_at, toUInt128(id));

{{distributed events cityHash64(project_id, session_id)}};

-- Each event's session, profile and page as the 128-bit SipHash that uniqExact keeps of a String, stored
-- once when the event is written: charts count distinct sessions or users over these keys
-- (export/chart-series.sql), and /pages tells a session's pages apart by theirs (insights/pages.sql),
-- without hashing every row's strings at query time. On a cluster the Distributed table names them as
-- aliases of the same expressions, so the shards compute them from the strings: the same answers.
ALTER TABLE {{table events}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS session_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(session_id)),
  ADD COLUMN IF NOT EXISTS profile_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(profile_id)),
  ADD COLUMN IF NOT EXISTS page_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(origin, path));

{{on_distributed events: ADD COLUMN IF NOT EXISTS session_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(session_id)), ADD COLUMN IF NOT EXISTS profile_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(profile_id)), ADD COLUMN IF NOT EXISTS page_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(origin, path))}};

-- Revenue per (project, hour), stored in the same parts as the rows (so never behind them): /metrics
-- without filters, over a window and buckets whose bounds all fall on whole hours, sums the hours instead
-- of every event (insights/revenue-hours.sql).
ALTER TABLE {{table events}} {{on_cluster}}
  ADD PROJECTION IF NOT EXISTS revenue_by_hour
  (
    SELECT project_id, toStartOfHour(created_at), sum(revenue)
    GROUP BY project_id, toStartOfHour(created_at)
  );

-- Events, users, sessions and the sums of the numeric columns per (project, event name, hour), stored and
-- merged with the rows. A chart item without filters or breakdowns, over windows and buckets whose bounds
-- all fall on whole hours, is answered from these states instead of every event (export/chart-series.sql).
-- The distinct counts stay exact: uniqExact states merge into the exact distinct count.
ALTER TABLE {{table events}} {{on_cluster}}
  ADD PROJECTION IF NOT EXISTS chart_by_hour
  (
    SELECT project_id, name, toStartOfHour(created_at), count(), uniqExact(profile_id), uniqExact(session_id), sum(revenue), sum(duration)
    GROUP BY project_id, name, toStartOfHour(created_at)
  );

-- Session summaries kept current by a materialized view over `events`. The view sees one insert block
-- at a time, so a row here is a *partial* session: the part of a session that arrived in one block.
-- TRICKY: a session split over several blocks has several rows with different `started_at`; readers
-- must combine them per session (min start, max end, sums, the fields of the earliest first event).
-- `first_event_key` orders first events exactly as the definitions do (created_at, then the id text)
-- in one UInt256: the millisecond timestamp above the id's 128 bits (toUInt128 of a UUID orders like
-- its text, unlike the UUID type's own comparison), so that `argMin(x, first_event_key)` is a plain
-- numeric comparison. `last_view_key` is the block's last page view's key (0 without one), by which the
-- exit page's fields combine: the latest view of all a session's blocks. The session fields' columns and the
-- view's select are generated from the registry's one list (queries/sessions/session-fields.ts).
CREATE TABLE IF NOT EXISTS {{table sessions}} {{on_cluster}}
(
  project_id LowCardinality(String),
  session_id String,
  started_at DateTime64(3, 'UTC'),
  first_event_key UInt256,
  last_view_key UInt256,
  ended_at DateTime64(3, 'UTC'),
  screen_views UInt32,
  event_count UInt32,
  revenue Int64,
  profile_id String,
  device_id String,
{{session_fields partial_columns}}
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(started_at)
ORDER BY (project_id, toDate(started_at), started_at, session_id);

{{distributed sessions cityHash64(project_id, session_id)}};

-- Each partial session's id and profile as the 128-bit SipHash that uniqExact keeps of a String (as events
-- have them): the open edge's partial rows are combined by `session_key` and a session's visitor is
-- `argMin(profile_key, ...)`, without hashing or copying strings per row. On a cluster, aliases on the
-- Distributed table, as for events.
ALTER TABLE {{table sessions}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS session_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(session_id)),
  ADD COLUMN IF NOT EXISTS profile_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(profile_id));

{{on_distributed sessions: ADD COLUMN IF NOT EXISTS session_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(session_id)), ADD COLUMN IF NOT EXISTS profile_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(profile_id))}};

-- The partial rows counted by (project, hour), stored in the same part as the rows (so never behind them):
-- the settled check (sessions/settled-days.sql) and the compaction's stale days read these counts.
ALTER TABLE {{table sessions}} {{on_cluster}}
  ADD PROJECTION IF NOT EXISTS rows_by_hour
  (
    SELECT project_id, toStartOfHour(started_at), count()
    GROUP BY project_id, toStartOfHour(started_at)
  );

CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_mv {{on_cluster}} TO {{table sessions}} AS
WITH bitOr(
  bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
  toUInt256(toUInt128(id))
) AS event_key
SELECT
{{session_fields partial_select}}
FROM {{table events}}
GROUP BY project_id, session_id;

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
