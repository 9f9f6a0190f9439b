-- @name sessions.chosen_sessions
-- @returns fragment: the conditions keeping the partial rows of the sessions `newest` chose
--   (sessions/sessions-list-newest.sql), so that the many fields a listed session shows are combined for one
--   page of sessions, not for every session of the regrouped days.
-- TRICKY: a session's partial rows all start at or after the session's start, so every row of a chosen session
-- lies from `newest.2` on: the read keeps only that end of the sort key's range (bounded by its day too, the
-- key's first time column), and each chosen session is still whole.
AND toDate(started_at) >= toDate(newest.2)
  AND started_at >= newest.2
  AND has(newest.1, session_key)
