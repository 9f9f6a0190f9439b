-- @name sessions.listed_stored
-- @returns fragment: the columns after a settled listed session's `s_` columns: visitor_id and all_events, as
--   sessions_settled stores them (migrations/002_derived_tables.sql)
,
      visitor_id,
      all_events
