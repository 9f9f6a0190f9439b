-- @migration 009_revenue_by_hour
-- Revenue per (project, hour) as a projection of `events`, stored in the same parts as the rows (so never
-- behind them): /metrics without filters, over a window and buckets whose bounds all fall on whole hours,
-- sums the hours instead of every event (insights/revenue-hours.sql).
ALTER TABLE {{table events}} {{on_cluster}}
  ADD PROJECTION IF NOT EXISTS revenue_by_hour
  (
    SELECT project_id, toStartOfHour(created_at), sum(revenue)
    GROUP BY project_id, toStartOfHour(created_at)
  );

ALTER TABLE {{table events}} {{on_cluster}} MATERIALIZE PROJECTION revenue_by_hour;
