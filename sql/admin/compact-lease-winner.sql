-- @name admin.compact-lease-winner
-- @returns holder String
-- the claimant of `generation`: holder (one row, or none when nobody claimed it)
SELECT holder
FROM compaction_claims
WHERE generation = {generation:UInt64}
ORDER BY claimed_at, holder
LIMIT 1
