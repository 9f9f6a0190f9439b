-- @name admin.import-discovery-keys
-- @returns nothing (insert)
-- The event_property_keys rows of the days admin/import-discovery-find.sql found, rebuilt from all their
-- stored events: the select of event_property_keys_mv (migrations/003_event_discovery.sql) over those events.
INSERT INTO event_property_keys
SELECT
  project_id,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  key,
  count() AS events
FROM events
ARRAY JOIN arrayDistinct(mapKeys(properties)) AS key
ARRAY JOIN [1, 24] AS span
WHERE project_id = {projectId:String}
  AND toDate(created_at) IN (SELECT day FROM {found:Identifier})
GROUP BY project_id, span, bucket, name, key
