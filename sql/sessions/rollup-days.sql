-- @name sessions.rollup_days
-- @returns fragment: a condition keeping the session rollup's rows of the page members: by the UTC day of the sessions'
--   start (`day_dimensions`, whose `hour` is the day's start; see admin/compact-session-rollup-build.sql) over
--   the window's whole UTC days [wholeFrom, wholeTo), by the hour (`dimensions`) over its hours before and
--   after them. With no whole day, wholeFrom and wholeTo are both the window's end: its hours are all read by
--   the hour.
(
    (
      dimension IN (/* @day_dimensions */)
      AND hour >= {wholeFrom:DateTime64(3, 'UTC')}
      AND hour < {wholeTo:DateTime64(3, 'UTC')}
    )
    OR (
      dimension IN (/* @dimensions */)
      AND (
        (hour >= {start:DateTime64(3, 'UTC')} AND hour < {wholeFrom:DateTime64(3, 'UTC')})
        OR (hour >= {wholeTo:DateTime64(3, 'UTC')} AND hour < {end:DateTime64(3, 'UTC')})
      )
    )
  )
