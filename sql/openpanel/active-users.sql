-- @name openpanel.active-users
-- @returns day Date, users UInt64
-- one row per local day of the window that has an active visitor, in day order: day, users
-- Rolling active users (docs/definitions.md, "OpenPanel's analytics routes"): for each local day d of the
-- window, the distinct profile_id with an event on a local day in [d - days + 1, d], before the window's
-- end. Taken when the days read, from the first trailing day (`readFrom`) to the last day, are at most 64
-- (queries/openpanel/active-users.ts): each visitor's active days are one UInt64, bit i the i-th day read,
-- so the events are grouped once, by visitor (profile_key, the profile id's 128-bit SipHash kept at insert,
-- as uniqExact would hash the id), into 8 bytes each; day k of the window counts the visitors with a bit in
-- k .. k + days - 1. Longer reads: openpanel/active-users-long.sql (docs/measurements.md, "OpenPanel's
-- analytics routes").
SELECT {firstDay:Date} + k AS day, users
FROM
(
  SELECT sumForEach(arrayMap(
    k -> toUInt64(bitAnd(bitShiftRight(active, k), bitShiftLeft(toUInt64(1), {days:UInt8}) - 1) != 0),
    range(toUInt8({lastDay:Date} - {firstDay:Date} + 1)))) AS per_day
  FROM
  (
    SELECT groupBitOr(bitShiftLeft(toUInt64(1), toUInt8(toDate(created_at, {tz:String}) - ({firstDay:Date} - ({days:UInt8} - 1))))) AS active
    FROM events
    WHERE project_id = {projectId:String}
      AND created_at >= {readFrom:DateTime64(3, 'UTC')}
      AND created_at < {end:DateTime64(3, 'UTC')}
    GROUP BY profile_key
  )
)
ARRAY JOIN per_day AS users, range(length(per_day)) AS k
WHERE users > 0
ORDER BY day
