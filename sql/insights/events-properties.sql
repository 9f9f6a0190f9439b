-- @name insights.events_properties
-- @returns key String, event_count UInt64
-- rows: key, event_count (the window's events carrying the key, of the asked name or of any);
--   most events first, then the key, one page and one row more
-- The window in three parts, as insights/events-names.sql reads it: day rows, hour rows at the edges, and
-- the events of the minutes left over (insights/events-properties-minutes.sql, left out when there are
-- none). An event carries a key once, however often its map repeats it. `event` is '' for events of every
-- name (the route takes no empty name).
SELECT key, sum(counted) AS event_count
FROM
(
  SELECT key, events AS counted
  FROM event_property_keys
  WHERE project_id = {projectId:String}
    AND ((span = 24 AND bucket >= {daysFrom:DateTime64(3, 'UTC')} AND bucket < {daysTo:DateTime64(3, 'UTC')})
      OR (span = 1 AND ((bucket >= {hoursFrom:DateTime64(3, 'UTC')} AND bucket < {daysFrom:DateTime64(3, 'UTC')})
        OR (bucket >= {daysTo:DateTime64(3, 'UTC')} AND bucket < {hoursTo:DateTime64(3, 'UTC')}))))
    AND ({event:String} = '' OR name = {event:String})
    AND position(lowerUTF8(key), lowerUTF8({search:String})) > 0/* @event_minutes */
)
GROUP BY key
ORDER BY event_count DESC, key ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
