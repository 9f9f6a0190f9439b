-- @name insights.revenue_hours
-- @returns fragment: the window's revenue by hour, as (at, amount): the hour and its events' revenue
-- Read from the revenue_by_hour projection (migrations/001_source_tables.sql): only for a request
-- without filters whose window and buckets start on whole hours, so that every event's hour lies in the
-- window exactly when the event does, and in the event's bucket.
SELECT toStartOfHour(created_at) AS at, sum(revenue) AS amount
FROM events
WHERE project_id = {projectId:String}
  AND toStartOfHour(created_at) >= {start:DateTime64(3, 'UTC')}
  AND toStartOfHour(created_at) < {end:DateTime64(3, 'UTC')}
GROUP BY at
