-- @name export.chart_series_first_event
-- @returns fragment: per (period, bucket, group) of one `one_event_per_user` series item: users whose first
--   matching event of the period falls in the bucket
-- Users are told apart by the key stored with each event (migrations/001_source_tables.sql), the hash of
-- profile_id that uniqExact would keep: the same values, without hashing the id of every row read.
SELECT /* @item */ AS item, /* @rank */ AS rank, labels, if(in_window, 'current', 'previous') AS period, bucket, value
FROM
(
  SELECT in_window, toUnixTimestamp(/* @bucket */) AS bucket, labels, toFloat64(count()) AS value
  FROM
  (
    SELECT
      created_at >= {start:DateTime64(3, 'UTC')} AS in_window,
      /* @labels */ AS labels,
      profile_key,
      min(created_at) AS first_at
    FROM events
    WHERE project_id = {projectId:String}
      AND created_at >= {from:DateTime64(3, 'UTC')}
      AND created_at < {end:DateTime64(3, 'UTC')}/* @conditions */
    GROUP BY in_window, labels, profile_key
  )
  GROUP BY in_window, bucket, labels
) AS buckets
/* @top_groups */
