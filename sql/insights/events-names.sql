-- @name insights.events_names
-- @returns name LowCardinality(String), event_count UInt64, last_seen_ms Int64
-- rows: name, event_count, last_seen_ms (the window's last event of the name, epoch ms); most
--   events first, then the name, one page and one row more
-- The window is read in three parts that cover it exactly (queries/discovery/discovery-window.ts): the UTC
-- days inside it from the day rows of event_names, the whole UTC hours left at its edges from the hour rows,
-- and the minutes left over (windows that do not start or end on a whole hour) from the events themselves
-- (insights/events-names-minutes.sql, in UNION ALL; left out when no minute is left over).
-- TRICKY: a bucket has a row per insert block until merges combine them (migrations/003_event_discovery.sql):
-- rows are summed, never read one by one: once, with the minutes' counts, by the one GROUP BY (a GROUP BY
-- per part as well took a quarter longer on a key with a value per purchase, docs/measurements.md).
-- `kept_keys`: a compared question (compare=previous|year) keeps only the rows of the keys its main answer
--   kept, bound as arrays (queries/core/compare.ts); nothing otherwise.
SELECT name, sum(counted) AS event_count, toUnixTimestamp64Milli(max(latest)) AS last_seen_ms
FROM
(
  SELECT name, events AS counted, last_seen AS latest
  FROM event_names
  WHERE project_id = {projectId:String}
    AND ((span = 24 AND bucket >= {daysFrom:DateTime64(3, 'UTC')} AND bucket < {daysTo:DateTime64(3, 'UTC')})
      OR (span = 1 AND ((bucket >= {hoursFrom:DateTime64(3, 'UTC')} AND bucket < {daysFrom:DateTime64(3, 'UTC')})
        OR (bucket >= {daysTo:DateTime64(3, 'UTC')} AND bucket < {hoursTo:DateTime64(3, 'UTC')}))))
    AND position(lowerUTF8(name), lowerUTF8({search:String})) > 0/* @event_minutes */
)
GROUP BY name/* @kept_keys */
ORDER BY event_count DESC, name ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
