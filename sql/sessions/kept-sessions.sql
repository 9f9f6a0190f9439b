-- @name sessions.kept_sessions
-- @returns fragment: the WHERE keeping the window's sessions of both sources at once by a restriction that reads
--   events (sessions/window-sessions.sql, `kept_sessions`)
WHERE /* @restriction */
