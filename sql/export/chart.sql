-- @name export.chart
-- @returns item UInt32, rank UInt32, labels Array(String), period String, bucket UInt32, value Float64
-- one row per (series item, group rank, period, bucket): item, rank (0 without breakdowns),
--   labels, period ('current' or 'previous'), bucket (unix seconds of the bucket start), value
-- All series of a chart in one statement: a UNION ALL of per-series GROUP BYs
-- (chart-series.sql, chart-series-first-event.sql).
SELECT item, rank, labels, period, bucket, value
FROM
(
/* @series */
)
