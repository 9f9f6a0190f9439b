-- @name sessions.listed_keyset
-- @returns fragment: AND conditions keeping the settled sessions that come after the keyset (after_start, after_id) in
--   the list's order, then `session_filters`
AND session_start <= after_start
      AND (session_start, session_id) < (after_start, after_id)
      /* @session_filters */
