-- @name export.events
-- @returns id String, name LowCardinality(String), deviceId String, profileId String, sessionId String,
--   projectId LowCardinality(String), createdAt String, path String, duration UInt32, city LowCardinality(String),
--   country LowCardinality(String), os LowCardinality(String), browser LowCardinality(String), @includes
-- one row per event, newest first (ties: id text descending): the base fields and the
--   included groups (see queries/export/export-events.ts), createdAt as ISO 8601 with the zone's offset
-- TRICKY: ordering by exactly the table's sort-key expressions (project_id, toDate(created_at),
-- created_at, toUInt128(id), which orders like the id text) lets ClickHouse read in key order and stop
-- after the page; any other tie-break makes it sort the whole project. Keyset pages add
-- `(created_at, toUInt128(id)) < cursor`, so a page deep in the export costs what the first one does.
SELECT
  toString(events.id) AS id,
  name,
  device_id AS deviceId,
  profile_id AS profileId,
  session_id AS sessionId,
  project_id AS projectId,
  concat(
    substring(formatDateTime(created_at, '%Y-%m-%dT%H:%i:%S.%f', {tz:String}), 1, 23),
    substring(formatDateTime(created_at, '%z', {tz:String}), 1, 3), ':',
    substring(formatDateTime(created_at, '%z', {tz:String}), 4, 2)
  ) AS createdAt,
  path,
  duration,
  city,
  country,
  os,
  browser/* @includes */
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {end:DateTime64(3, 'UTC')}/* @conditions */
ORDER BY project_id DESC, toDate(created_at) DESC, created_at DESC, toUInt128(events.id) DESC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
