-- @migration 002_sessions
-- Session summaries kept current by a materialized view over `events`. The view sees one insert block
-- at a time, so a row here is a *partial* session: the part of a session that arrived in one block.
-- TRICKY: a session split over several blocks has several rows with different `started_at`; readers
-- must combine them per session_id (min start, max end, sums, attributes of the earliest first event).
-- `first_event_key` orders first events exactly as the definitions do (created_at, then the id text)
-- in one UInt256: the millisecond timestamp above the id's 128 bits (toUInt128 of a UUID orders like
-- its text, unlike the UUID type's own comparison), so that
-- `argMin(x, first_event_key)` is a plain numeric comparison (a tuple with a String is twice as slow).
-- The session fields' columns and the view's select are generated from the registry's one list
-- (queries/core/session-fields.ts).
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

CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_mv {{on_cluster}} TO {{table sessions}} AS
WITH bitOr(
  bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
  toUInt256(toUInt128(id))
) AS event_key
SELECT
{{session_fields partial_select}}
FROM {{table events}}
GROUP BY project_id, session_id;
