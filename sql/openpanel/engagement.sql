-- @name openpanel.engagement
-- @returns days Int64, users UInt64
-- one row per number of days since a visitor's last event, in that order: days, users
-- Engagement (docs/definitions.md, "OpenPanel's analytics routes"): identified visitors (profile_id other
-- than device_id) by the local days from their last event's day to today, over the project's whole history.
-- Visitors are told apart by profile_key (the profile id's 128-bit SipHash, kept at insert), which holds a
-- group's key in 16 bytes where the id's text would be copied into the table (docs/measurements.md).
SELECT toInt64(dateDiff('day', last_day, {today:Date})) AS days, count() AS users
FROM
(
  SELECT toDate(max(created_at), {tz:String}) AS last_day
  FROM events
  WHERE project_id = {projectId:String}
    AND profile_id != device_id
    AND created_at <= {now:DateTime64(3, 'UTC')}
  GROUP BY profile_key
) AS last_seen
GROUP BY days
ORDER BY days
