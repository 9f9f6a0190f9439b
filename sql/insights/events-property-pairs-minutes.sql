-- @name insights.events_property_pairs_minutes
-- @returns fragment: the rows of events_property_pairs (insights/events-property-pairs.sql) for the minutes of the window left
--   over at its edges, [start, hoursFrom) and [hoursTo, end), counted from the events themselves
-- Placed in UNION ALL only when the window does not start and end on whole UTC hours: a statement
-- whose window has no minute left over plans no read of events (queries/discovery/discovery.ts).
SELECT key, name, count() AS counted
FROM events
ARRAY JOIN arrayDistinct(mapKeys(properties)) AS key
WHERE project_id = {projectId:String}
  AND ((created_at >= {start:DateTime64(3, 'UTC')} AND created_at < {hoursFrom:DateTime64(3, 'UTC')})
    OR (created_at >= {hoursTo:DateTime64(3, 'UTC')} AND created_at < {end:DateTime64(3, 'UTC')}))
  AND ({event:String} = '' OR name = {event:String})
  AND position(lowerUTF8(key), lowerUTF8({search:String})) > 0
GROUP BY key, name
