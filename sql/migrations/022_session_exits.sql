-- @migration 022_session_exits
-- A session's exit page: the origin and path of its last page view (latest created_at, ties by the larger
-- id text), none for a session without page views. Each partial row keeps its block's last page view as
-- `last_view_key` (the view's created_at and id as one number, as first_event_key; 0 when the block has no
-- page view) with that view's origin and path, and readers combine a session's rows by
-- `argMax(exit_origin, last_view_key)`: the latest view of all its blocks. Combined rows carry
-- s_exit_origin and s_exit_path ('' without a page view: all_views = 0 tells that apart).
ALTER TABLE {{table sessions}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS last_view_key UInt256,
  ADD COLUMN IF NOT EXISTS exit_origin LowCardinality(String),
  ADD COLUMN IF NOT EXISTS exit_path String;

-- The Distributed table on a cluster (the same table again on a single node: nothing to add).
ALTER TABLE sessions {{on_cluster}}
  ADD COLUMN IF NOT EXISTS last_view_key UInt256,
  ADD COLUMN IF NOT EXISTS exit_origin LowCardinality(String),
  ADD COLUMN IF NOT EXISTS exit_path String;

-- The view's new select, in place (no block is missed between an old and a new view).
ALTER TABLE sessions_mv {{on_cluster}} MODIFY QUERY
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
  argMin(os_version, event_key) AS os_version,
  maxIf(event_key, name = 'screen_view') AS last_view_key,
  argMaxIf(origin, event_key, name = 'screen_view') AS exit_origin,
  argMaxIf(path, event_key, name = 'screen_view') AS exit_path
FROM {{table events}}
GROUP BY project_id, session_id;

-- TRICKY: the partial rows written before hold no exit (key 0). Rather than rewrite them (a writer that
-- rewrites partial rows must invalidate compactions, see docs/design/sessions.md), one more partial row is
-- added per stored session with a page view: the session as its events stored now give it, with its
-- counts (views, events, revenue) at 0, so every sum, minimum, maximum and first-event attribute of the
-- combined session stays as it was and its exit comes from this row, or from a later block's row whose
-- view is later. Only adding keeps the settled check's invariant; the records are emptied below anyway.
INSERT INTO sessions
  (project_id, session_id, started_at, first_event_key, ended_at, screen_views, event_count, revenue, profile_id, device_id,
   entry_origin, entry_path, referrer, referrer_name, referrer_type, utm_source, utm_medium, utm_campaign, utm_term,
   utm_content, country, region, city, device, brand, model, browser, browser_version, os, os_version,
   last_view_key, exit_origin, exit_path)
WITH bitOr(
  bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
  toUInt256(toUInt128(id))
) AS event_key
SELECT
  project_id,
  session_id,
  min(created_at),
  min(event_key),
  max(created_at),
  toUInt32(0),
  toUInt32(0),
  toInt64(0),
  argMin(profile_id, event_key),
  argMin(device_id, event_key),
  argMin(origin, event_key),
  argMin(path, event_key),
  argMin(referrer, event_key),
  argMin(referrer_name, event_key),
  argMin(referrer_type, event_key),
  argMin(utm_source, event_key),
  argMin(utm_medium, event_key),
  argMin(utm_campaign, event_key),
  argMin(utm_term, event_key),
  argMin(utm_content, event_key),
  argMin(country, event_key),
  argMin(region, event_key),
  argMin(city, event_key),
  argMin(device, event_key),
  argMin(brand, event_key),
  argMin(model, event_key),
  argMin(browser, event_key),
  argMin(browser_version, event_key),
  argMin(os, event_key),
  argMin(os_version, event_key),
  maxIf(event_key, name = 'screen_view'),
  argMaxIf(origin, event_key, name = 'screen_view'),
  argMaxIf(path, event_key, name = 'screen_view')
FROM events
GROUP BY project_id, session_id
HAVING countIf(name = 'screen_view') > 0;

-- Each combined session's exit page, after its entry page (the compaction's build fills the table by
-- position: admin/compact-build.sql).
ALTER TABLE {{table sessions_settled}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS s_exit_origin LowCardinality(String) AFTER s_entry_path,
  ADD COLUMN IF NOT EXISTS s_exit_path String AFTER s_exit_origin;

ALTER TABLE sessions_settled {{on_cluster}}
  ADD COLUMN IF NOT EXISTS s_exit_origin LowCardinality(String) AFTER s_entry_path,
  ADD COLUMN IF NOT EXISTS s_exit_path String AFTER s_exit_origin;

ALTER TABLE sessions_settled_stage {{on_cluster}}
  ADD COLUMN IF NOT EXISTS s_exit_origin LowCardinality(String) AFTER s_entry_path,
  ADD COLUMN IF NOT EXISTS s_exit_path String AFTER s_exit_origin;

-- Every day is compacted again (its rows hold no exit); until then questions regroup partial rows, exactly.
TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};
