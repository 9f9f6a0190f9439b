-- @name admin.import-resession-find
-- @returns nothing (creates a table: session_id, each of a staged session whose stored events outnumber the
--   events its partial rows in `sessions` count)
-- An insert into `events` commits the events' part first and the part of their partial session rows
-- (sessions_mv) after it: an import killed between the two leaves its events without those rows, and
-- its rerun, finding every event stored, moves none. Everywhere else each stored event is counted once
-- by the partial rows (the view writes them from every insert), so such sessions are found by the counts
-- and rebuilt (admin/import-resession-clear.sql, admin/import-resession.sql). Kept in a table beside the
-- staging table (and dropped with it), so that no list of them passes through a statement's parameters.
CREATE TABLE {found:Identifier}
ENGINE = MergeTree
ORDER BY session_id
AS
SELECT stored.session_id AS session_id
FROM
(
  SELECT session_id, count() AS events
  FROM events
  WHERE project_id = {projectId:String}
    AND session_id GLOBAL IN (SELECT session_id FROM {stage:Identifier})
  GROUP BY session_id
) AS stored
LEFT JOIN
(
  SELECT session_id, sum(event_count) AS counted
  FROM sessions
  WHERE project_id = {projectId:String}
    AND session_id GLOBAL IN (SELECT session_id FROM {stage:Identifier})
  GROUP BY session_id
) AS partial ON partial.session_id = stored.session_id
WHERE ifNull(partial.counted, 0) != stored.events
