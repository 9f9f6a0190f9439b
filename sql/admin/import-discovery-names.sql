-- @name admin.import-discovery-names
-- @returns nothing (insert)
-- The event_names rows of the days admin/import-discovery-find.sql found, rebuilt from all their stored
-- events: the select of event_names_mv (migrations/003_event_discovery.sql) over those events
-- (discovery.test.ts compares the rows it rebuilds with the rows the view wrote).
INSERT INTO event_names
SELECT
  project_id,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  count() AS events,
  max(created_at) AS last_seen
FROM events
ARRAY JOIN [1, 24] AS span
WHERE project_id = {projectId:String}
  AND toDate(created_at) IN (SELECT day FROM {found:Identifier})
GROUP BY project_id, span, bucket, name
