-- @migration 010_session_pages
-- Each settled session's pages: the distinct (origin, path) of all its events, with the screen views of
-- each. A question whose event filters read only `origin` and `path` (no `name` filter) keeps a settled
-- session when one of its pages matches them and counts the views of those pages, from these arrays,
-- instead of scanning the window's events grouped by session and joining them (insights/
-- window-sessions.sql; on 10M events, the settled half of a 30-day `path contains` filter: 188-232 ms
-- scanned and grouped, 84-99 ms from the arrays, before the join it also saves).
-- The compaction builds them from the events of the day's read range, which hold every event of a session
-- that starts on the day; every day is compacted again (session_compactions emptied), and until then
-- questions regroup partial rows, exactly.
ALTER TABLE {{table sessions_settled}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS page_origins Array(LowCardinality(String)),
  ADD COLUMN IF NOT EXISTS page_paths Array(String),
  ADD COLUMN IF NOT EXISTS page_views Array(UInt32);

-- The Distributed table on a cluster (the same table again on a single node: nothing to add).
ALTER TABLE sessions_settled {{on_cluster}}
  ADD COLUMN IF NOT EXISTS page_origins Array(LowCardinality(String)),
  ADD COLUMN IF NOT EXISTS page_paths Array(String),
  ADD COLUMN IF NOT EXISTS page_views Array(UInt32);

ALTER TABLE {{table sessions_settled_stage}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS page_origins Array(LowCardinality(String)),
  ADD COLUMN IF NOT EXISTS page_paths Array(String),
  ADD COLUMN IF NOT EXISTS page_views Array(UInt32);

TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};
