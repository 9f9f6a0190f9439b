-- @migration 011_chart_by_hour
-- Events, users, sessions and the sums of the numeric columns per (project, event name, hour), as a
-- projection of `events` stored in the same parts as the rows (so never behind them, and merged with
-- them). A chart item without filters or breakdowns that counts events, users or sessions or sums a
-- numeric column, over windows and buckets whose bounds all fall on whole hours, places its events by
-- their hour (export/chart-series.sql) and is answered from these states instead of every event, with the
-- same values. The distinct counts stay exact: uniqExact states merge into the exact distinct count.
ALTER TABLE {{table events}} {{on_cluster}}
  ADD PROJECTION IF NOT EXISTS chart_by_hour
  (
    SELECT project_id, name, toStartOfHour(created_at), count(), uniqExact(profile_id), uniqExact(session_id), sum(revenue), sum(duration)
    GROUP BY project_id, name, toStartOfHour(created_at)
  );

ALTER TABLE {{table events}} {{on_cluster}} MATERIALIZE PROJECTION chart_by_hour;
