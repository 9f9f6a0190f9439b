-- @name export.chart_series
-- @returns fragment: per (period, bucket, group) of one series item: its segment's aggregate as value
-- Events of the window (and, with `previous`, of the window before it) matching the item's name and
-- filters; with breakdowns, only the item's top groups (ranked by the same aggregate over the current
-- window) are kept, joined with their rank. The period is grouped as a number (0/1), named after: a
-- String key made the grouping about 10% slower. An event is placed by `created_at`, or by the start of
-- its hour when the chart_by_hour projection answers the item (migrations/001_source_tables.sql): only
-- when every bound of the windows and buckets is a whole hour, so both place every event alike.
SELECT /* @item */ AS item, /* @rank */ AS rank, labels, if(in_window, 'current', 'previous') AS period, bucket, value
FROM
(
  SELECT
    /* @at */ >= {start:DateTime64(3, 'UTC')} AS in_window,
    toUnixTimestamp(/* @bucket */) AS bucket,
    /* @labels */ AS labels,
    toFloat64(/* @aggregate */) AS value
  FROM events/* @array_join */
  WHERE project_id = {projectId:String}
    AND /* @at */ >= {from:DateTime64(3, 'UTC')}
    AND /* @at */ < {end:DateTime64(3, 'UTC')}/* @conditions */
  GROUP BY in_window, bucket, labels
) AS buckets
/* @top_groups */
