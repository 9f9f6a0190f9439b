-- @name insights.events_names_minutes
-- @returns fragment: the rows of events_names (insights/events-names.sql) for the minutes of the window left over at its
--   edges, [start, hoursFrom) and [hoursTo, end), counted from the events themselves
-- Placed in UNION ALL only when the window does not start and end on whole UTC hours: a statement
-- whose window has no minute left over plans no read of events (queries/discovery/discovery.ts).
SELECT name, count() AS counted, max(created_at) AS latest
FROM events
WHERE project_id = {projectId:String}
  AND ((created_at >= {start:DateTime64(3, 'UTC')} AND created_at < {hoursFrom:DateTime64(3, 'UTC')})
    OR (created_at >= {hoursTo:DateTime64(3, 'UTC')} AND created_at < {end:DateTime64(3, 'UTC')}))
  AND position(lowerUTF8(name), lowerUTF8({search:String})) > 0
GROUP BY name
