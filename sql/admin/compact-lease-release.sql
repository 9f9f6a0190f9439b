-- @name admin.compact-lease-release
-- @returns nothing (marks the compaction `holder` ended, or refused the lease: its rows no longer count)
INSERT INTO compaction_lease (holder, released) VALUES ({holder:String}, 1)
