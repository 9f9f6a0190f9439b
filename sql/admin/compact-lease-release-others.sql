-- @name admin.compact-lease-release-others
-- @returns nothing (marks ended every holder, claimant or logged, whose id does not start with `process`:
--   embedded, the data directory's lock leaves no other process alive, so their runs died with their process)
INSERT INTO compaction_lease (holder, released)
SELECT DISTINCT holder, 1
FROM
(
  SELECT holder FROM compaction_claims
  UNION ALL
  SELECT holder FROM compaction_lease
)
WHERE NOT startsWith(holder, {process:String})
  AND holder NOT IN (SELECT holder FROM compaction_lease WHERE released = 1)
