-- @name insights.performed_sessions
-- @returns fragment: the sessions with an event matching a `performed` leaf of a filter tree, one row each: session_id,
--   and `mask`, the leaves its events match (bit n for leaf n)
-- Every distinct leaf of a request is read in this one scan, which the statement names once in its WITH
-- (`performed_sessions`) and every place of the tree reads by that name (queries/core/filter-tree.ts).
-- Events of the sessions an answer can count lie between the lookback before the window and the lookback
-- after it.
SELECT session_id, groupBitOr(/* @leaf_bits */) AS mask
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {readFrom:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND /* @performed */
GROUP BY session_id
