-- @name control.data-version
-- @returns one row: parts, a fingerprint of the active parts of the tables answers are read from (their count
--   and the XOR of their names' hashes, as text); mutating, how many mutations of those tables are not done
-- A server's data version (queries/core/data-version.ts). Every insert (into `events`, or through its view
-- into `sessions`), attach, drop, merge and mutation of those tables replaces or adds parts, so any change of
-- what a statement can read changes the fingerprint; a merge changes it too, which only costs a recomputed
-- answer. On a cluster the parts of every replica count (`clusterAllReplicas`), so a replica catching up
-- changes it as well. Without bound parameters, like every control statement.
WITH ['events', 'sessions', 'profiles', 'sessions_settled', 'page_views_settled', 'page_rollup', 'session_rollup', 'session_compactions'] AS read_tables
SELECT
  concat(toString(count()), ':', toString(groupBitXor(cityHash64(hostName(), table, name)))) AS parts,
  (
    SELECT count()
    FROM /* @mutations */
    WHERE database = currentDatabase()
      AND NOT is_done
      AND has(read_tables, replaceRegexpOne(table, '_local$', ''))
  ) AS mutating
FROM /* @parts */
WHERE database = currentDatabase()
  AND active
  AND has(read_tables, replaceRegexpOne(table, '_local$', ''))
