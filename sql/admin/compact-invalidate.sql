-- @name admin.compact-invalidate
-- @returns nothing (insert): for every day of the project whose read range [day - lookback, day + 1 day +
--   lookback) can hold a partial row of the sessions in `found`, a record that never holds
-- The settled check trusts a day's record while its read range holds as many partial rows as the
-- compaction saw, which is true only while partial rows are added and never removed or rewritten
-- (docs/design/sessions.md). A writer that deletes or rebuilds partial rows (an import's repair of a
-- session) runs this first and last: the newer record (a number one above, so ReplacingMergeTree keeps it)
-- counts more rows than a range can hold, so readers regroup those days and the next compaction builds them
-- again. A session's partial rows start between its first and its last event.
INSERT INTO session_compactions (project_id, day, compaction, lookback_seconds, partial_rows, definition)
SELECT recorded.project_id, recorded.day, recorded.compaction + 1, recorded.lookback_seconds, 18446744073709551615, recorded.definition
FROM session_compactions AS recorded FINAL
CROSS JOIN
(
  SELECT min(created_at) AS first_at, max(created_at) AS last_at
  FROM events
  WHERE project_id = {projectId:String}
    AND session_id IN (SELECT session_id FROM {found:Identifier})
) AS touched
WHERE recorded.project_id = {projectId:String}
  AND recorded.day > toDate(touched.first_at - toIntervalSecond(recorded.lookback_seconds) - toIntervalDay(1))
  AND recorded.day <= toDate(touched.last_at + toIntervalSecond(recorded.lookback_seconds))
