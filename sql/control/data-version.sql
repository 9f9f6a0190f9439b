-- @name control.data-version
-- @returns parts String, mutating Nullable(UInt64)
-- one row: parts, a fingerprint of what the tables answers are read from hold (as text); mutating, how
--   many mutations of those tables are not done
-- A server's data version (queries/run/data-version.ts). Per partition of each such table (per replica on a
-- cluster, through `clusterAllReplicas`): its highest block number, which every insert, attach and replica
-- fetch of new data raises, and its highest mutation version, which every mutation (a delete, an update, a
-- rewrite) raises; a dropped partition leaves the set. A merge changes neither, so a quiet table keeps its
-- version while it merges. Without bound parameters, like every control statement.
WITH ['events', 'sessions', 'profiles', 'sessions_settled', 'page_views_settled', 'page_rollup', 'session_rollup', 'session_compactions', 'event_names', 'event_property_keys', 'event_property_values'] AS read_tables
SELECT
  toString(groupBitXor(cityHash64(host, table, partition_id, top_block, top_mutation))) AS parts,
  (
    SELECT count()
    FROM /* @mutations */
    WHERE database = currentDatabase()
      AND NOT is_done
      AND has(read_tables, replaceRegexpOne(table, '_local$', ''))
  ) AS mutating
FROM
(
  -- TRICKY: a part no mutation touched has data_version = min_block_number; a merge keeps the highest
  -- mutation version of its parts, but not their data_version otherwise.
  SELECT hostName() AS host, table, partition_id, max(max_block_number) AS top_block, maxIf(data_version, data_version != min_block_number) AS top_mutation
  FROM /* @parts */
  WHERE database = currentDatabase()
    AND active
    AND has(read_tables, replaceRegexpOne(table, '_local$', ''))
  GROUP BY host, table, partition_id
)
