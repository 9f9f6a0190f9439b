-- @name admin.import-resession
-- @returns nothing (insert)
-- The partial rows of the sessions admin/import-resession-find.sql found, rebuilt from all their stored
-- events as one block: the select of sessions_mv over those events, generated from the same list
-- (queries/sessions/session-fields.ts; import.test.ts compares the rows it rebuilds with the rows the view wrote).
-- The insert names its columns: a directory's `sessions` keeps the column order its first version made.
INSERT INTO sessions (/* @partial_columns */)
WITH bitOr(
  bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128),
  toUInt256(toUInt128(id))
) AS event_key
SELECT
/* @partial_row */
FROM events
WHERE project_id = {projectId:String}
  AND session_id IN (SELECT session_id FROM {found:Identifier})
GROUP BY project_id, session_id
