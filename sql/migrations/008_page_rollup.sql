-- @migration 008_page_rollup
-- Page views of settled days rolled up per (page, hour, hour of the previous view): /pages without session
-- filters reads these instead of a row per session, page and quarter hour (page_views_settled, about 12
-- times as many rows). Built by the same compaction from the day's page_views_settled rows, swapped in
-- whole by (day, compaction) like them, and valid exactly when they are (insights/settled-days.sql).
-- TRICKY: `page_rows` counts page_views_settled rows, each a session's views of the page in one quarter
-- hour; the row is the session's first of the page in a window exactly when its previous view lies before
-- the window's start, so a window whose bounds fall on whole hours counts a page's sessions as the
-- page_rows whose previous_hour lies before its start. Other windows read page_views_settled.
-- Every day is compacted again (session_compactions emptied), which builds the rollup; until then
-- questions regroup partial rows, exactly.
CREATE TABLE IF NOT EXISTS {{table page_rollup}} {{on_cluster}}
(
  project_id LowCardinality(String),
  day Date,
  compaction UInt64,
  hour DateTime('UTC'),
  origin LowCardinality(String),
  path String,
  -- toStartOfHour of the session's previous view of the page before the row's first one (1970 when none).
  previous_hour DateTime('UTC'),
  page_rows UInt64,
  views UInt64,
  with_next UInt64,
  gap_total_ms Int64,
  -- The latest non-empty title of the views and that view's key (as in page_views_settled).
  title String,
  title_key UInt256
)
ENGINE = {{sharded MergeTree()}}
PARTITION BY (day, compaction)
ORDER BY (project_id, hour, origin, path, previous_hour);

{{distributed page_rollup cityHash64(project_id)}};

-- Where a compaction builds a day before swapping it into page_rollup (same structure and keys).
CREATE TABLE IF NOT EXISTS {{table page_rollup_stage}} {{on_cluster}} AS {{table page_rollup}}
ENGINE = {{sharded MergeTree()}}
PARTITION BY (day, compaction)
ORDER BY (project_id, hour, origin, path, previous_hour);

TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};
