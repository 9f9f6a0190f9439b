-- @name sessions.listed_settled
-- @returns fragment: WITH items: settled_compactions, the compactions the settled days are read from (see
--   sessions/window-sessions.sql), and `newest` when days are regrouped (sessions/sessions-list-newest.sql)
CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS settled_compactions/* @newest_sessions */
