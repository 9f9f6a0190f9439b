-- @migration 001_events
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
