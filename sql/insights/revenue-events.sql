-- @name insights.revenue_events
-- @returns fragment: the window's events with revenue kept by the filters, as (at, amount): created_at and revenue
-- Events without revenue add nothing, so the filters are not evaluated on them (docs/measurements.md,
-- "Filters").
SELECT created_at AS at, revenue AS amount
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {end:DateTime64(3, 'UTC')}
  AND revenue != 0
  /* @revenue_filters */
