-- @name admin.compact-lease-holder
-- @returns the compaction that holds the lease: holder, the one not released whose earliest row of the last
--   `leaseSeconds` is the earliest (ties by holder); none when no such row is that recent
SELECT holder
FROM compaction_lease
WHERE taken_at > now64(3) - toIntervalSecond({leaseSeconds:UInt32})
GROUP BY holder
HAVING max(released) = 0
ORDER BY min(taken_at), holder
LIMIT 1
