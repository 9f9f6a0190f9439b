-- @migration 003_event_discovery
-- The discovery routes' summaries (/events/names, /events/properties, /events/property_values): events
-- counted per project, UTC hour and UTC day (`span` 1 or 24, the bucket's length in hours), event name, and
-- property key or key and value, so that a question reads rows per bucket of its window, not per event
-- (queries/discovery/discovery.ts reads whole days, then the whole hours at the edges, then the events of
-- the minutes left over). Each is kept by a materialized view over `events`: every insert, an import's move
-- included, adds its block's counts. TRICKY: the view sees one insert block at a time, so a bucket has a
-- row per block until merges combine them; readers always sum (`sum()` ... GROUP BY), never read one row as
-- the bucket's count, and an AggregatingMergeTree of SimpleAggregateFunction columns only keeps that sum
-- small.
-- A property is counted once per event that carries its key (the map's first entry for a key, as
-- `properties[key]` reads it): keys are counted over the event's distinct keys, values over each key's
-- first entry.
-- The events stored before this migration are counted by the INSERT ... SELECT statements at its end, from
-- the same selects as the views; an import rerun repairs the days a killed import left uncounted
-- (the import's discovery templates in sql/admin/). TRICKY: events inserted between a view's creation and its backfill would be
-- counted twice; the embedded engine migrates before it serves or accepts writes, and on a server the
-- one-shot migrate step should run while nothing writes events.
CREATE TABLE IF NOT EXISTS {{table event_names}} {{on_cluster}}
(
  project_id LowCardinality(String),
  span UInt8,
  bucket DateTime('UTC'),
  name LowCardinality(String),
  events SimpleAggregateFunction(sum, UInt64),
  last_seen SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = {{sharded AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (project_id, span, bucket, name);

{{distributed event_names cityHash64(project_id)}};

CREATE TABLE IF NOT EXISTS {{table event_property_keys}} {{on_cluster}}
(
  project_id LowCardinality(String),
  span UInt8,
  bucket DateTime('UTC'),
  name LowCardinality(String),
  key String,
  events SimpleAggregateFunction(sum, UInt64)
)
ENGINE = {{sharded AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (project_id, span, bucket, name, key);

{{distributed event_property_keys cityHash64(project_id)}};

-- Keyed by the property key first: /events/property_values always names one.
CREATE TABLE IF NOT EXISTS {{table event_property_values}} {{on_cluster}}
(
  project_id LowCardinality(String),
  key String,
  span UInt8,
  bucket DateTime('UTC'),
  name LowCardinality(String),
  value String,
  events SimpleAggregateFunction(sum, UInt64)
)
ENGINE = {{sharded AggregatingMergeTree()}}
PARTITION BY toYYYYMM(bucket)
ORDER BY (project_id, key, span, bucket, name, value);

{{distributed event_property_values cityHash64(project_id)}};

-- Emptied before the views exist and the backfill runs, so that a migration cut short and run again counts
-- every event once: the backfill below counts them all again.
TRUNCATE TABLE IF EXISTS {{table event_names}} {{on_cluster}};

TRUNCATE TABLE IF EXISTS {{table event_property_keys}} {{on_cluster}};

TRUNCATE TABLE IF EXISTS {{table event_property_values}} {{on_cluster}};

CREATE MATERIALIZED VIEW IF NOT EXISTS event_names_mv {{on_cluster}} TO {{table event_names}} AS
SELECT
  project_id,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  count() AS events,
  max(created_at) AS last_seen
FROM {{table events}}
ARRAY JOIN [1, 24] AS span
GROUP BY project_id, span, bucket, name;

CREATE MATERIALIZED VIEW IF NOT EXISTS event_property_keys_mv {{on_cluster}} TO {{table event_property_keys}} AS
SELECT
  project_id,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  key,
  count() AS events
FROM {{table events}}
ARRAY JOIN arrayDistinct(mapKeys(properties)) AS key
ARRAY JOIN [1, 24] AS span
GROUP BY project_id, span, bucket, name, key;

CREATE MATERIALIZED VIEW IF NOT EXISTS event_property_values_mv {{on_cluster}} TO {{table event_property_values}} AS
SELECT
  project_id,
  key,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  value,
  count() AS events
FROM {{table events}}
ARRAY JOIN mapKeys(properties) AS key, mapValues(properties) AS value, arrayEnumerateUniq(mapKeys(properties)) AS occurrence
ARRAY JOIN [1, 24] AS span
WHERE occurrence = 1
GROUP BY project_id, key, span, bucket, name, value;

INSERT INTO event_names SETTINGS distributed_foreground_insert = 1
SELECT
  project_id,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  count() AS events,
  max(created_at) AS last_seen
FROM events
ARRAY JOIN [1, 24] AS span
GROUP BY project_id, span, bucket, name;

INSERT INTO event_property_keys SETTINGS distributed_foreground_insert = 1
SELECT
  project_id,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  key,
  count() AS events
FROM events
ARRAY JOIN arrayDistinct(mapKeys(properties)) AS key
ARRAY JOIN [1, 24] AS span
GROUP BY project_id, span, bucket, name, key;

INSERT INTO event_property_values SETTINGS distributed_foreground_insert = 1
SELECT
  project_id,
  key,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  value,
  count() AS events
FROM events
ARRAY JOIN mapKeys(properties) AS key, mapValues(properties) AS value, arrayEnumerateUniq(mapKeys(properties)) AS occurrence
ARRAY JOIN [1, 24] AS span
WHERE occurrence = 1
GROUP BY project_id, key, span, bucket, name, value;
