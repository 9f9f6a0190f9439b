-- @migration 002_sessions
-- Session summaries kept current by a materialized view over `events`. The view sees one insert block
-- at a time, so a row here is a *partial* session: the part of a session that arrived in one block.
-- TRICKY: a session split over several blocks has several rows with different `started_at`; readers
-- must combine them per session_id (min start, max end, sums, attributes of the earliest first event).
CREATE TABLE IF NOT EXISTS {{table sessions}} {{on_cluster}}
(
  project_id LowCardinality(String),
  session_id String,
  started_at DateTime64(3, 'UTC'),
  first_event_id String,
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
SELECT
  project_id,
  session_id,
  min(created_at) AS started_at,
  argMin(toString(id), (created_at, toString(id))) AS first_event_id,
  max(created_at) AS ended_at,
  toUInt32(countIf(name = 'screen_view')) AS screen_views,
  toUInt32(count()) AS event_count,
  sum(revenue) AS revenue,
  argMin(profile_id, (created_at, toString(id))) AS profile_id,
  argMin(device_id, (created_at, toString(id))) AS device_id,
  argMin(origin, (created_at, toString(id))) AS entry_origin,
  argMin(path, (created_at, toString(id))) AS entry_path,
  argMin(referrer, (created_at, toString(id))) AS referrer,
  argMin(referrer_name, (created_at, toString(id))) AS referrer_name,
  argMin(referrer_type, (created_at, toString(id))) AS referrer_type,
  argMin(utm_source, (created_at, toString(id))) AS utm_source,
  argMin(utm_medium, (created_at, toString(id))) AS utm_medium,
  argMin(utm_campaign, (created_at, toString(id))) AS utm_campaign,
  argMin(utm_term, (created_at, toString(id))) AS utm_term,
  argMin(utm_content, (created_at, toString(id))) AS utm_content,
  argMin(country, (created_at, toString(id))) AS country,
  argMin(region, (created_at, toString(id))) AS region,
  argMin(city, (created_at, toString(id))) AS city,
  argMin(device, (created_at, toString(id))) AS device,
  argMin(brand, (created_at, toString(id))) AS brand,
  argMin(model, (created_at, toString(id))) AS model,
  argMin(browser, (created_at, toString(id))) AS browser,
  argMin(browser_version, (created_at, toString(id))) AS browser_version,
  argMin(os, (created_at, toString(id))) AS os,
  argMin(os_version, (created_at, toString(id))) AS os_version
FROM {{table events}}
GROUP BY project_id, session_id;
