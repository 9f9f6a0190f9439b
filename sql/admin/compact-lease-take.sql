-- @name admin.compact-lease-take
-- @returns nothing (adds a row of the compaction `holder`, taken now by the engine's clock)
INSERT INTO compaction_lease (holder) VALUES ({holder:String})
