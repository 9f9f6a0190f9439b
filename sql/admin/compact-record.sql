-- @name admin.compact-record
-- @returns nothing (insert)
-- What a day's compaction saw, per project, and the definition it was built by (queries/sessions/
-- definition.ts): recorded only once the day has been swapped in.
INSERT INTO session_compactions (project_id, day, compaction, lookback_seconds, partial_rows, definition)
SELECT
  tupleElement(counted, 1),
  {day:Date},
  {compaction:UInt64},
  {lookbackSeconds:UInt32},
  tupleElement(counted, 2),
  {definition:UInt64}
FROM (SELECT arrayJoin(arrayZip({projects:Array(String)}, {partialRows:Array(UInt64)})) AS counted)
