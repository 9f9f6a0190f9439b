-- @name insights.performed_sessions
-- @returns the sessions with an event matching a `performed` leaf of a filter tree: session_id, and with
--   several distinct leaves, the 1-based number of each leaf an event matches (`leaf`), one row per match
-- Every distinct leaf of a request is read in this one scan, which the statement names once in its WITH
-- (`performed_sessions`) and every place of the tree reads by that name (queries/core/filter-tree.ts).
-- Events of the sessions an answer can count lie between the lookback before the window and the lookback
-- after it.
SELECT session_id/* @leaf_number */
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {readFrom:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND /* @performed */
