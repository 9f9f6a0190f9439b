-- @name sessions.listed_combined
-- @returns fragment: the columns after a regrouped listed session's `s_` columns: its visitor id and events,
--   combined from its partial rows as sessions_settled stores them (migrations/002_derived_tables.sql)
,
  argMin(profile_id, first_event_key) AS visitor_id,
  sum(event_count) AS all_events
