-- @name admin.import-discovery-find
-- @returns nothing (creates a table: day, each UTC day of the staged range whose discovery summaries do not
--   count the project's stored events)
-- An insert into `events` commits the events' part and then each view's part (sessions_mv, and the
-- discovery summaries' views of migrations/003_event_discovery.sql): an import killed between them leaves
-- stored events that a summary does not count, and its rerun, finding every event stored, moves none.
-- Everywhere else each stored event is counted once in each summary, at both spans, so such days are found
-- by comparing per day: events with the event_names rows, and events' distinct property keys with the
-- event_property_keys and event_property_values rows (one row per key an event carries); then rebuilt
-- (admin/import-discovery-clear.sql, and the names, keys and values templates beside it). Kept in a table beside the staging
-- table (and dropped with it), so that no list of days passes through a statement's parameters.
CREATE TABLE {found:Identifier}
ENGINE = MergeTree
ORDER BY day
AS
WITH
  (SELECT toDate(min(created_at)) FROM {stage:Identifier}) AS first_day,
  (SELECT toDate(max(created_at)) FROM {stage:Identifier}) AS last_day
SELECT day
FROM
(
  SELECT toDate(created_at) AS day, count() AS stored_events, sum(length(arrayDistinct(mapKeys(properties)))) AS stored_keys
  FROM events
  WHERE project_id = {projectId:String}
    AND toDate(created_at) >= first_day AND toDate(created_at) <= last_day
  GROUP BY day
) AS stored
FULL JOIN
(
  SELECT
    day,
    sumIf(counted, summary = 'names' AND span = 24) AS names_by_day,
    sumIf(counted, summary = 'names' AND span = 1) AS names_by_hour,
    sumIf(counted, summary = 'keys' AND span = 24) AS keys_by_day,
    sumIf(counted, summary = 'keys' AND span = 1) AS keys_by_hour,
    sumIf(counted, summary = 'values' AND span = 24) AS values_by_day,
    sumIf(counted, summary = 'values' AND span = 1) AS values_by_hour
  FROM
  (
    SELECT toDate(bucket) AS day, 'names' AS summary, span, sum(events) AS counted
    FROM event_names
    WHERE project_id = {projectId:String} AND toDate(bucket) >= first_day AND toDate(bucket) <= last_day
    GROUP BY day, span
    UNION ALL
    SELECT toDate(bucket) AS day, 'keys' AS summary, span, sum(events) AS counted
    FROM event_property_keys
    WHERE project_id = {projectId:String} AND toDate(bucket) >= first_day AND toDate(bucket) <= last_day
    GROUP BY day, span
    UNION ALL
    SELECT toDate(bucket) AS day, 'values' AS summary, span, sum(events) AS counted
    FROM event_property_values
    WHERE project_id = {projectId:String} AND toDate(bucket) >= first_day AND toDate(bucket) <= last_day
    GROUP BY day, span
  )
  GROUP BY day
) AS summed USING (day)
WHERE stored_events != names_by_day OR stored_events != names_by_hour
  OR stored_keys != keys_by_day OR stored_keys != keys_by_hour
  OR stored_keys != values_by_day OR stored_keys != values_by_hour
