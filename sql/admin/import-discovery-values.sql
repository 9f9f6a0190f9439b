-- @name admin.import-discovery-values
-- @returns nothing (insert)
-- The event_property_values rows of the days admin/import-discovery-find.sql found, rebuilt from all their
-- stored events: the select of event_property_values_mv (migrations/003_event_discovery.sql) over those
-- events.
INSERT INTO event_property_values
SELECT
  project_id,
  key,
  span,
  if(span = 1, toStartOfHour(toDateTime(created_at, 'UTC')), toStartOfDay(toDateTime(created_at, 'UTC'))) AS bucket,
  name,
  value,
  count() AS events
FROM events
ARRAY JOIN mapKeys(properties) AS key, mapValues(properties) AS value, arrayEnumerateUniq(mapKeys(properties)) AS occurrence
ARRAY JOIN [1, 24] AS span
WHERE occurrence = 1
  AND project_id = {projectId:String}
  AND toDate(created_at) IN (SELECT day FROM {found:Identifier})
GROUP BY project_id, key, span, bucket, name, value
