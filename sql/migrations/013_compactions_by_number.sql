-- @migration 013_compactions_by_number
-- Readers keep a settled day's rows by the number of the compaction its record names
-- (insights/settled-days.sql), instead of first checking that every combined table holds that compaction
-- alone (the same answers, one check fewer per statement). For that:
-- - a compaction's number names its day: the day number times 10^13 plus the build's start in ms
--   (server/admin/compact.ts), so `compaction IN (...)` alone picks the day's partition;
-- - a compaction no longer drops the day's older ones as it swaps in, as a reader may still be reading
--   one its record named. An older one goes once no record names it and a newer one has been recorded for
--   longer than a statement may run (admin/compact-superseded.sql); `recorded_at` says since when.
-- The records of numbers that do not name their day are emptied, so every day is compacted again; until
-- then readers regroup it, exactly.
ALTER TABLE {{table session_compactions}} {{on_cluster}}
  ADD COLUMN IF NOT EXISTS recorded_at DateTime64(3, 'UTC') DEFAULT now64(3);

-- The Distributed table on a cluster (the same table again on a single node: nothing to add).
ALTER TABLE session_compactions {{on_cluster}}
  ADD COLUMN IF NOT EXISTS recorded_at DateTime64(3, 'UTC') DEFAULT now64(3);

TRUNCATE TABLE IF EXISTS {{table session_compactions}} {{on_cluster}};
