-- @name export.chart_series_first_event
-- @returns per (period, bucket, group) of one `one_event_per_user` series item: users whose first
--   matching event of the period falls in the bucket
SELECT {item:UInt32} AS item, /* @rank */ AS rank, labels, period, bucket, value
FROM
(
  SELECT period, toUnixTimestamp(/* @bucket */) AS bucket, labels, toFloat64(count()) AS value
  FROM
  (
    SELECT
      if(created_at >= {start:DateTime64(3, 'UTC')}, 'current', 'previous') AS period,
      /* @labels */ AS labels,
      profile_id,
      min(created_at) AS first_at
    FROM events
    WHERE project_id = {projectId:String}
      AND created_at >= {from:DateTime64(3, 'UTC')}
      AND created_at < {end:DateTime64(3, 'UTC')}/* @conditions */
    GROUP BY period, labels, profile_id
  )
  GROUP BY period, bucket, labels
) AS buckets
/* @top_groups */
