-- @name openpanel.active-users
-- @returns day Date, users UInt64
-- one row per local day of the window that has an active visitor, in day order: day, users
-- Rolling active users (docs/definitions.md, "OpenPanel's analytics routes"): for each local day d of the
-- window, the distinct profile_id with an event on a local day in [d - days + 1, d], before the window's
-- end. Each visitor's active days are read once, from the first trailing day's start (`readFrom`).
SELECT day, uniqExact(profile_id) AS users
FROM
(
  SELECT DISTINCT toDate(created_at, {tz:String}) AS active_day, profile_id
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {readFrom:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}
) AS active
ARRAY JOIN arrayMap(n -> active_day + n, range({days:UInt8})) AS day
WHERE day >= {firstDay:Date} AND day <= {lastDay:Date}
GROUP BY day
ORDER BY day
