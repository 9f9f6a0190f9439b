-- @name export.chart_series
-- @returns per (period, bucket, group) of one series item: its segment's aggregate as value
-- Events of the window (and, with `previous`, of the window before it) matching the item's name and
-- filters; with breakdowns, only the item's top groups (ranked by the same aggregate over the current
-- window) are kept, joined with their rank.
SELECT {item:UInt32} AS item, /* @rank */ AS rank, labels, period, bucket, value
FROM
(
  SELECT
    if(created_at >= {start:DateTime64(3, 'UTC')}, 'current', 'previous') AS period,
    toUnixTimestamp(/* @bucket */) AS bucket,
    /* @labels */ AS labels,
    toFloat64(/* @aggregate */) AS value
  FROM events/* @array_join */
  WHERE project_id = {projectId:String}
    AND created_at >= {from:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}/* @conditions */
  GROUP BY period, bucket, labels
) AS buckets
/* @top_groups */
