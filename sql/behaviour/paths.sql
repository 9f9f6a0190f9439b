-- @name behaviour.paths
-- @returns kind String, step UInt32, source String, target String, sessions UInt64, exits UInt64, total UInt64
-- per kind ('node' or 'link') and step, the top `limit` rows: kind, step, source, target, sessions, exits, total (sequences in all)
-- Each session that starts in the window and passes the filters gives a sequence: its node labels in
-- event order (created_at, then id), from its first node matching the start step when there is one
-- (mode after), or up to it (mode before), or from it to the first node after it matching the end step
-- (mode between); consecutive repeats collapsed; cut to `steps` (the first ones, or the last ones before
-- the start). Events are read a lookback before and after the window, so a session's start and its events
-- are whole. Sessions are grouped by session_key, their id's 128-bit key, and events of one millisecond
-- ordered by toUInt128(id), which orders ids as their text does (the UUID type's comparison does not).
-- A session's nodes are kept as one UInt256 each, not as tuples holding a string: the milliseconds since
-- readFrom from bit 192, the id from bit 64, the label's number in `labels` (every node label read) from
-- bit 8, whether the node matches the start step in bit 0 and whether it matches the end step in bit 1.
-- Sorted as numbers they are in time order, then id order, one event each. A year of a large project's
-- sessions then fits the memory limit. Labels stay numbers until the last step, which names them and
-- orders ties by their text.
WITH (
  SELECT groupUniqArray(/* @node_label */)
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {readFrom:DateTime64(3, 'UTC')}
    AND created_at < {readTo:DateTime64(3, 'UTC')}
    AND /* @node_event */
) AS labels
SELECT kind, step, labels[source_node] AS source, if(target_node = 0, '', labels[target_node]) AS target, sessions, exits,
  sum(if(kind = 'node' AND step = 1, sessions, 0)) OVER () AS total
FROM
(
  SELECT item.1 AS kind, item.2 AS step, item.3 AS source_node, item.4 AS target_node, count() AS sessions, sum(item.5) AS exits
  FROM
  (
    SELECT
      arraySort(nodes) AS sorted,
      arrayMap(node -> toUInt32(bitAnd(bitShiftRight(node, 8), 4294967295)), sorted) AS ordered,
      arraySlice(ordered, /* @sequence_range */) AS kept,
      arrayFilter((label, i) -> i = 1 OR label != kept[i - 1], kept, arrayEnumerate(kept)) AS collapsed,
      arraySlice(collapsed, /* @sequence_cut */) AS sequence
    FROM
    (
      SELECT
        session_key,
        min(created_at) AS started_at,
        groupArrayIf(
          bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at) - toUnixTimestamp64Milli({readFrom:DateTime64(3, 'UTC')})), 192)
            + bitShiftLeft(toUInt256(toUInt128(id)), 64)
            + bitShiftLeft(toUInt256(transform(/* @node_label */, labels, range(1, length(labels) + 1), toUInt32(0))), 8)
            + /* @start_match */
            + 2 * /* @end_match */,
          /* @node_event */) AS nodes/* @attributes */
      FROM events
      WHERE project_id = {projectId:String}
        AND created_at >= {readFrom:DateTime64(3, 'UTC')}
        AND created_at < {readTo:DateTime64(3, 'UTC')}
      GROUP BY session_key
      HAVING started_at >= {start:DateTime64(3, 'UTC')}
        AND started_at < {end:DateTime64(3, 'UTC')}/* @session_filters */
    )
    WHERE length(sequence) > 0
  )
  ARRAY JOIN arrayConcat(
    arrayMap((label, i) -> ('node', toUInt32(i), label, toUInt32(0), toUInt8(i = length(sequence))), sequence, arrayEnumerate(sequence)),
    arrayMap((source, target, i) -> ('link', toUInt32(i), source, target, toUInt8(0)), arrayPopBack(sequence), arrayPopFront(sequence), arrayEnumerate(arrayPopBack(sequence)))
  ) AS item
  GROUP BY kind, step, source_node, target_node
)
ORDER BY kind, step, sessions DESC, source, target
LIMIT {limit:UInt32} BY kind, step
