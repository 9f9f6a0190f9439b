-- @name admin.compact-views-build
-- @returns nothing (insert)
-- The page views of one UTC day, per (session, page, quarter hour), ordered within their sessions over
-- the views of the day's read range exactly as insights/pages.sql orders them: a view's next view is
-- the session's next screen_view (created_at, then id text), its previous view of the page the one before.
INSERT INTO page_views_settled_stage
/* @job */
SELECT
  project_id,
  job_day AS day,
  job_compaction AS compaction,
  toStartOfFifteenMinutes(created_at) AS bucket,
  session_id,
  origin,
  path,
  toUInt32(count()) AS views,
  argMin(previous_view_at, view_key) AS previous_at,
  toUInt32(countIf(next_at IS NOT NULL)) AS with_next,
  sumIf(dateDiff('millisecond', created_at, assumeNotNull(next_at)), next_at IS NOT NULL) AS gap_total_ms,
  argMaxIf(view_title, view_key, view_title != '') AS title,
  maxIf(view_key, view_title != '') AS title_key
FROM
(
  SELECT
    project_id, session_id, origin, path, title AS view_title, created_at,
    bitOr(
      bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
      toUInt256(toUInt128(id))
    ) AS view_key,
    leadInFrame(toNullable(created_at)) OVER (
      PARTITION BY project_id, session_id ORDER BY view_key ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING
    ) AS next_at,
    lagInFrame(created_at, 1, toDateTime64(0, 3, 'UTC')) OVER (
      PARTITION BY project_id, session_id, origin, path ORDER BY view_key ROWS BETWEEN 1 PRECEDING AND CURRENT ROW
    ) AS previous_view_at
  FROM events
  WHERE name = 'screen_view'
    AND created_at >= job_read_from
    AND created_at < job_read_to
)
WHERE toDate(created_at) = job_day
GROUP BY project_id, session_id, origin, path, bucket
