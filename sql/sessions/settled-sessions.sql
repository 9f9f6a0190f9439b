-- @name sessions.settled_sessions
-- @returns fragment: per session of a settled day that starts in the window and passes `session_filters`: session_id,
--   session_start, duration_ms, all_views, visitor_key (see migrations/002_derived_tables.sql), and the
--   columns of `settled_attributes`
-- From sessions_settled, each settled day from the compaction its record names (settled_compactions, which
-- the statement names in its WITH: the rows of sessions/settled-days.sql; a compaction's number names its
-- day, see migrations/002_derived_tables.sql). The read names the window's days as bounds too: the
-- partition key's min/max prunes by them (not by the IN set), so a project's older history is not looked
-- at (docs/measurements.md, "Settled reads").
SELECT
    session_id,
    session_start,
    duration_ms,
    all_views,
    visitor_key/* @settled_attributes */
  FROM sessions_settled
  WHERE project_id = {projectId:String}
    AND session_start >= {start:DateTime64(3, 'UTC')}
    AND session_start < {end:DateTime64(3, 'UTC')}
    AND day >= {firstDay:Date}
    AND day <= {lastDay:Date}
    AND compaction IN (SELECT arrayJoin(settled_compactions))
    /* @session_filters */
