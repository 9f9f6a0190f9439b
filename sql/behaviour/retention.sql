-- @name behaviour.retention
-- @returns per cohort with visitors: cohort_start (epoch seconds), size, returned (visitors per period 1..periods)
-- A visitor's cohort is the period holding their earliest start event inside the window. Each visitor
-- brings, per period they were active in, whether a start event in the window or a return event fell
-- there; the cohort comes from those rows, and each period after it is one bit of the visitor's
-- returns. Counting visitors per cohort and period then needs no list of visitors per cell. A return
-- counts in a period that has started (returnsUntil is the end of the period holding now): the later
-- ones are null, so the answer changes with the clock only when a period starts.
SELECT toUnixTimestamp(cohort) AS cohort_start, count() AS size,
  sumForEach(arrayMap(k -> toUInt64(/* @return_test */), range(1, {periods:UInt8} + 1))) AS returned
FROM
(
  SELECT profile_id, any(cohort) AS cohort,
    groupBitOr(if(has_return = 1 AND offset >= 1 AND offset <= {periods:UInt8}, bitShiftLeft(toUInt32(1), offset), toUInt32(0))) AS returns
  FROM
  (
    SELECT profile_id, has_return, assumeNotNull(first_period) AS cohort, dateDiff(/* @period_unit */, cohort, bucket) AS offset
    FROM
    (
      SELECT profile_id, bucket, has_return, min(if(has_start = 1, bucket, NULL)) OVER (PARTITION BY profile_id) AS first_period
      FROM
      (
        SELECT
          profile_id,
          /* @period_bucket */ AS bucket,
          max(/* @start_match */ AND created_at < {end:DateTime64(3, 'UTC')}) AS has_start,
          max(/* @return_match */ AND created_at < {returnsUntil:DateTime64(3, 'UTC')}) AS has_return
        FROM events
        WHERE project_id = {projectId:String}
          AND created_at >= {start:DateTime64(3, 'UTC')}
          AND created_at < {readTo:DateTime64(3, 'UTC')}
          AND (/* @start_match */ OR /* @return_match */)
        GROUP BY profile_id, bucket
      )
    )
    WHERE first_period IS NOT NULL
  )
  GROUP BY profile_id
)
GROUP BY cohort
