-- @migration 002_sessions
-- Session summaries kept current by a materialized view over `events`. The view sees one insert block
-- at a time, so a row here is a *partial* session: the part of a session that arrived in one block.
-- TRICKY: a session split over several blocks has several rows with different `started_at`; readers
-- must combine them per session_id (min start, max end, sums, attributes of the earliest first event).
-- `first_event_key` orders first events exactly as the definitions do (created_at, then the id text)
-- in one UInt256: the millisecond timestamp above the id's 128 bits (toUInt128 of a UUID orders like
-- its text, unlike the UUID type's own comparison), so that
-- `argMin(x, first_event_key)` is a plain numeric comparison (a tuple with a String is twice as slow).
CREATE TABLE IF NOT EXISTS {{table sessions}} {{on_cluster}}
(
  project_id LowCardinality(String),
  session_id String,
  started_at DateTime64(3, 'UTC'),
  first_event_key UInt256,
  ended_at DateTime64(3, 'UTC'),
  screen_views UInt32,
  event_count UInt32,
  revenue Int64,
  profile_id String,
  device_id String,
  entry_origin LowCardinality(String),
  entry_path String,
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
  device LowCardinality(String),
  brand LowCardinality(String),
  model LowCardinality(String),
  browser LowCardinality(String),
  browser_version LowCardinality(String),
  os LowCardinality(String),
  os_version LowCardinality(String)
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY toYYYYMM(started_at)
ORDER BY (project_id, toDate(started_at), started_at, session_id);

{{distributed sessions cityHash64(project_id, session_id)}};

CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_mv {{on_cluster}} TO {{table sessions}} AS
WITH bitOr(
  bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
  toUInt256(toUInt128(id))
) AS event_key
SELECT
  project_id,
  session_id,
  min(created_at) AS started_at,
  min(event_key) AS first_event_key,
  max(created_at) AS ended_at,
  toUInt32(countIf(name = 'screen_view')) AS screen_views,
  toUInt32(count()) AS event_count,
  sum(revenue) AS revenue,
  argMin(profile_id, event_key) AS profile_id,
  argMin(device_id, event_key) AS device_id,
  argMin(origin, event_key) AS entry_origin,
  argMin(path, event_key) AS entry_path,
  argMin(referrer, event_key) AS referrer,
  argMin(referrer_name, event_key) AS referrer_name,
  argMin(referrer_type, event_key) AS referrer_type,
  argMin(utm_source, event_key) AS utm_source,
  argMin(utm_medium, event_key) AS utm_medium,
  argMin(utm_campaign, event_key) AS utm_campaign,
  argMin(utm_term, event_key) AS utm_term,
  argMin(utm_content, event_key) AS utm_content,
  argMin(country, event_key) AS country,
  argMin(region, event_key) AS region,
  argMin(city, event_key) AS city,
  argMin(device, event_key) AS device,
  argMin(brand, event_key) AS brand,
  argMin(model, event_key) AS model,
  argMin(browser, event_key) AS browser,
  argMin(browser_version, event_key) AS browser_version,
  argMin(os, event_key) AS os,
  argMin(os_version, event_key) AS os_version
FROM {{table events}}
GROUP BY project_id, session_id;
