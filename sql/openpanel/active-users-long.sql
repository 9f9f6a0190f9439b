-- @name openpanel.active-users-long
-- @returns day Date, users UInt64
-- one row per local day of the window that has an active visitor, in day order: day, users
-- Rolling active users as openpanel/active-users.sql counts them, when more than 64 days are read: each
-- visitor's active days, each widened to the `days` days it counts on, as one array of distinct days, so
-- the events are grouped once, by visitor (profile_key, as openpanel/active-users.sql groups them), and a
-- day counts each visitor once without a set per day.
SELECT day, count() AS users
FROM
(
  SELECT arrayDistinct(arrayFlatten(arrayMap(
    active_day -> arrayMap(n -> active_day + n, range({days:UInt8})),
    groupUniqArray(toDate(created_at, {tz:String}))))) AS counted_days
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {readFrom:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}
  GROUP BY profile_key
)
ARRAY JOIN counted_days AS day
WHERE day >= {firstDay:Date} AND day <= {lastDay:Date}
GROUP BY day
ORDER BY day
