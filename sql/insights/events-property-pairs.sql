-- @name insights.events_property_pairs
-- @returns key String, name LowCardinality(String), event_count UInt64
-- rows: key, name, event_count (the window's events of the name carrying the key, of the asked name or of
--   any); by key, then name, bytewise, one page and one row more
-- OpenPanel's key list in its shape (/events/properties without detail=true): a row per key and event name,
-- in key order, where insights/events-properties.sql ranks keys by their events. The window in three parts,
-- as insights/events-names.sql reads it: day rows, hour rows at the edges, and the events of the minutes
-- left over (insights/events-property-pairs-minutes.sql, left out when there are none). An event carries a
-- key once, however often its map repeats it. `event` is '' for events of every name.
SELECT key, name, sum(counted) AS event_count
FROM
(
  SELECT key, name, events AS counted
  FROM event_property_keys
  WHERE project_id = {projectId:String}
    AND ((span = 24 AND bucket >= {daysFrom:DateTime64(3, 'UTC')} AND bucket < {daysTo:DateTime64(3, 'UTC')})
      OR (span = 1 AND ((bucket >= {hoursFrom:DateTime64(3, 'UTC')} AND bucket < {daysFrom:DateTime64(3, 'UTC')})
        OR (bucket >= {daysTo:DateTime64(3, 'UTC')} AND bucket < {hoursTo:DateTime64(3, 'UTC')}))))
    AND ({event:String} = '' OR name = {event:String})
    AND position(lowerUTF8(key), lowerUTF8({search:String})) > 0/* @event_minutes */
)
GROUP BY key, name
ORDER BY key ASC, name ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
