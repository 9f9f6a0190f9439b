-- @name openpanel.active-users
-- @returns day Date, users UInt64
-- one row per local day of the window that has an active visitor, in day order: day, users
-- Rolling active users (docs/definitions.md, "OpenPanel's analytics routes"): for each local day d of the
-- window, the distinct profile_id with an event on a local day in [d - days + 1, d], before the window's
-- end. Each local day's visitors are one exact set (`uniqExactState`), read once from the first trailing
-- day's start (`readFrom`); a day's answer merges the sets of its `days` days, so the events are grouped
-- once, by day, and never repeated per trailing day (docs/measurements.md, "OpenPanel's analytics routes").
SELECT day, uniqExactMerge(visitors) AS users
FROM
(
  SELECT toDate(created_at, {tz:String}) AS active_day, uniqExactState(profile_id) AS visitors
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {readFrom:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}
  GROUP BY active_day
) AS active
ARRAY JOIN arrayMap(n -> active_day + n, range({days:UInt8})) AS day
WHERE day >= {firstDay:Date} AND day <= {lastDay:Date}
GROUP BY day
ORDER BY day
