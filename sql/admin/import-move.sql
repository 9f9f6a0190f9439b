-- @name admin.import-move
-- @returns nothing (insert)
-- Moves an import's new events into `events` with ONE insert, so the materialized views that keep
-- `sessions` see every moved row exactly once. TRICKY: an INSERT ... SELECT is cut into blocks of
-- min_insert_block_size_rows / _bytes, and each block commits on its own; both are raised so the whole
-- import is one block, which commits as one part per month (a kill can only land between those
-- renames). The block is held in memory once: very large files are better split, each file then being
-- all-or-nothing and safe to rerun. On a cluster `events` is Distributed, whose inserts are queued and
-- sent later by default; distributed_foreground_insert makes the move finish on the shards first.
INSERT INTO events
SETTINGS min_insert_block_size_rows = 1000000000000, min_insert_block_size_bytes = 1000000000000000,
  distributed_foreground_insert = 1
SELECT * EXCEPT (line)
FROM (/* @new_events */)
