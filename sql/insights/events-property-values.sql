-- @name insights.events_property_values
-- @returns value String, event_count UInt64
-- rows: value, event_count (the window's events whose property `key` holds the value, of the asked
--   name or of any); most events first, then the value, one page and one row more
-- The window in three parts, as insights/events-names.sql reads it: day rows, hour rows at the edges, and
-- the events of the minutes left over (insights/events-property-values-minutes.sql, left out when there
-- are none). An event's value of a key is its map's first entry for the key, as `properties[key]` reads
-- it; events without the key are not counted. `event` is '' for events of every name (the route takes no
-- empty name).
SELECT value, sum(counted) AS event_count
FROM
(
  SELECT value, events AS counted
  FROM event_property_values
  WHERE project_id = {projectId:String}
    AND key = {key:String}
    AND ((span = 24 AND bucket >= {daysFrom:DateTime64(3, 'UTC')} AND bucket < {daysTo:DateTime64(3, 'UTC')})
      OR (span = 1 AND ((bucket >= {hoursFrom:DateTime64(3, 'UTC')} AND bucket < {daysFrom:DateTime64(3, 'UTC')})
        OR (bucket >= {daysTo:DateTime64(3, 'UTC')} AND bucket < {hoursTo:DateTime64(3, 'UTC')}))))
    AND ({event:String} = '' OR name = {event:String})
    AND position(lowerUTF8(value), lowerUTF8({search:String})) > 0/* @event_minutes */
)
GROUP BY value
ORDER BY event_count DESC, value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
