-- @migration 006_settled_page_views
-- Page views of settled days, combined per (session, page, quarter hour): so that /pages reads about one row
-- per session and page for settled time, and orders a session's views (next view, previous view of the
-- same page) only at the open edge. A day's rows are the views whose UTC day it is, built by the same
-- compaction as sessions_settled (server/admin/compact.ts) from the views of the day's read range
-- [day - lookback, day + 1 day + lookback), swapped in whole (a partition per day and compaction, see
-- migrations/007_settled_by_compaction.sql), and valid exactly when that day's sessions
-- are (insights/settled-days.sql): every event of a session with a view on the day lies in the read range,
-- so a late event changes the partial rows the compaction counted.
-- TRICKY: a row adds up views of one quarter hour, so a window whose bounds fall on quarter hours (every
-- day-based window: time zones are whole quarter hours from UTC) takes whole rows; other windows read the
-- views themselves.
CREATE TABLE IF NOT EXISTS {{table page_views_settled}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  bucket DateTime('UTC'),
  session_id String,
  origin LowCardinality(String),
  path String,
  views UInt32,
  -- The session's view of this page before the row's first one (1970 when none): the row is the session's
  -- first of this page in a window exactly when this lies before the window's start.
  previous_at DateTime64(3, 'UTC'),
  -- Views followed by another view of the session, and the sum of those gaps.
  with_next UInt32,
  gap_total_ms Int64,
  -- The latest non-empty title of the row's views and that view's key (created_at and id, as in
  -- insights/pages.sql); key 0 and '' when none has a title.
  title String,
  title_key UInt256
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY (day, compaction)
ORDER BY (project_id, bucket, origin, path, session_id);

{{distributed page_views_settled cityHash64(project_id, session_id)}};

-- Where a compaction builds a day before swapping it into page_views_settled (same structure and keys).
CREATE TABLE IF NOT EXISTS {{table page_views_settled_stage}} {{on_cluster}} AS {{table page_views_settled}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY (day, compaction)
ORDER BY (project_id, bucket, origin, path, session_id);
