-- @name admin.compact-masked
-- @returns partition_id String
-- the partitions of a combined table (partition_id) whose rows masked by lightweight deletes
--   (admin/compact-drop.sql) are at least `share` of the rows its active parts store there; `table` is the
--   table questions read and `tableName` the table whose parts store it (on a cluster, the shards' local one)
-- The masked rows are still read and skipped by every statement over the month, until a merge includes
-- their part; a month's single merged part is never merged again without a new part beside it. A month
-- whose rows are all masked has no live count (LEFT JOIN): all of it is masked. The combined tables are
-- partitioned by toYYYYMM(day), which is the partition's id as text. On a cluster the parts are those of
-- one replica of each shard, whose rows together are the table's.
SELECT stored.partition_id AS partition_id
FROM
(
  SELECT partition_id, sum(rows) AS stored_rows
  FROM /* @parts */
  WHERE database = currentDatabase()
    AND table = {tableName:String}
    AND active
  GROUP BY partition_id
  HAVING max(has_lightweight_delete) = 1
) AS stored
LEFT JOIN
(
  SELECT toString(toYYYYMM(day)) AS partition_id, count() AS live_rows
  FROM {table:Identifier}
  GROUP BY partition_id
) AS live ON live.partition_id = stored.partition_id
WHERE stored.stored_rows - ifNull(live.live_rows, 0) >= {share:Float64} * stored.stored_rows
ORDER BY partition_id
