-- @name behaviour.retention_weekly
-- @returns week_start UInt32, active_users UInt64, retained_users UInt64
-- per week (Monday, in the request's zone) with a visitor active in the window: week_start (epoch seconds of
-- its midnight), active_users (visitors with an event of the window in it), retained_users (those of them
-- with an event in the week after it, inside the window or after its end)
-- One pass over the events groups them per visitor (profile_key): the weeks of their events inside the
-- window, and the weeks of all their events read (up to the end of the week after the window's last). A
-- visitor then counts in each of their active weeks, and as retained where the next week is among theirs.
-- Weeks are Dates, so the next week is a calendar week whatever the zone's clock changes.
SELECT toUnixTimestamp(toDateTime(week, {tz:String})) AS week_start, count() AS active_users,
  countIf(has(weeks, addWeeks(week, 1))) AS retained_users
FROM
(
  SELECT
    profile_key,
    groupUniqArrayIf(toStartOfWeek(created_at, 1, {tz:String}), created_at < {end:DateTime64(3, 'UTC')}) AS active_weeks,
    groupUniqArray(toStartOfWeek(created_at, 1, {tz:String})) AS weeks
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {start:DateTime64(3, 'UTC')}
    AND created_at < {readTo:DateTime64(3, 'UTC')}
    AND /* @active_match */
  GROUP BY profile_key
)
ARRAY JOIN active_weeks AS week
GROUP BY week
ORDER BY week
