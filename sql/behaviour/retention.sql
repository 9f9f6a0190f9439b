-- @name behaviour.retention
-- @returns cohort UInt16, size UInt64, returned Array(UInt64)
-- per cohort with visitors: cohort (its period's number, 0 for the window's first), size, returned (visitors
--   per period 1..periods)
-- A visitor's cohort is the period holding their earliest start event inside the window. One pass over
-- the events groups them per visitor (by profile_key, the profile's 128-bit hash): the cohort is the
-- least period of a start event, and each period holding a return event is one bit of the visitor's
-- return words, numbered from the window's first period: one UInt64 of 63 bits when the periods read fit
-- it, else UInt256 words of 255. Shifted by the cohort's number, the bits 1..periods say which periods
-- after the cohort the visitor came back in. Counting visitors per cohort and period then needs no list of
-- visitors per cell, and no row per visitor and period. Periods are numbered by the engine's relative
-- numbers in the request's zone (toRelativeWeekNum and its kin: one conversion an event), less the number
-- of the window's first period, not by each event's period start and a dateDiff (docs/measurements.md). A
-- return counts in a period that has started (returnsUntil is the end of the period holding now): the later
-- ones are null, so the answer changes with the clock only when a period starts.
SELECT cohort, count() AS size,
  sumForEach(arrayMap(k -> toUInt64(/* @return_test */), range(1, {periods:UInt8} + 1))) AS returned
FROM
(
  SELECT first AS cohort, toUInt32(bitAnd(/* @relative_returns */, {returnBits:UInt32})) AS returns
  FROM
  (
    SELECT
      minIf(position, is_start = 1) AS first/* @return_words */
    FROM
    (
      SELECT
        profile_key,
        toUInt16(/* @period_number */ - /* @first_period_number */) AS position,
        toUInt8(/* @start_match */ AND created_at < {end:DateTime64(3, 'UTC')}) AS is_start,
        toUInt8(/* @return_match */ AND created_at < {returnsUntil:DateTime64(3, 'UTC')}) AS is_return
      FROM events
      WHERE project_id = {projectId:String}
        AND created_at >= {start:DateTime64(3, 'UTC')}
        AND created_at < {readTo:DateTime64(3, 'UTC')}
        AND (/* @start_match */ OR /* @return_match */)
    )
    GROUP BY profile_key
    HAVING max(is_start) = 1
  )
)
GROUP BY cohort
