-- @name admin.compact-lease-state
-- @returns generation UInt64, holder String, live UInt8
-- one row: generation, the latest claimed (0 when none); holder, its claimant ('' when none); live, 1
--   while that claimant holds the lease: not released, and its claim or its latest row in compaction_lease
--   less than `leaseSeconds` old
SELECT
  claims.latest AS generation,
  claims.claimant AS holder,
  toUInt8(
    claims.claimant != ''
    AND ifNull(log.released, 0) = 0
    AND greatest(claims.latest_claimed_at, ifNull(log.seen_at, claims.latest_claimed_at)) > now64(3) - toIntervalSecond({leaseSeconds:UInt32})
  ) AS live
FROM
(
  SELECT max(generation) AS latest, argMax(holder, generation) AS claimant, argMax(claimed_at, generation) AS latest_claimed_at
  FROM compaction_claims
) AS claims
LEFT JOIN
(
  SELECT holder, max(taken_at) AS seen_at, max(released) AS released
  FROM compaction_lease
  GROUP BY holder
) AS log ON log.holder = claims.claimant
SETTINGS join_use_nulls = 1
