-- @name admin.compact-lease-release-others
-- @returns nothing (marks ended every holder whose id does not start with `process`: embedded, the data
--   directory's lock leaves no other process alive, so their runs died with their process)
INSERT INTO compaction_lease (holder, released)
SELECT DISTINCT holder, 1
FROM compaction_lease
WHERE NOT startsWith(holder, {process:String})
  AND released = 0
