-- @name admin.compact-lease-claim
-- @returns nothing (claims `generation` for `holder`; every claim of a generation carries the same token, so
--   the engine keeps only the first: see migrations/002_derived_tables.sql)
INSERT INTO compaction_claims (generation, holder)
SETTINGS insert_deduplication_token = {token:String}
VALUES ({generation:UInt64}, {holder:String})
