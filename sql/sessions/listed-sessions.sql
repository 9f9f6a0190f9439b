-- @name sessions.listed_sessions
-- @returns fragment: the rows of a sessions list's page, as a sessions list reads them: session_id,
--   session_start, duration_ms, all_views, visitor_key, the `s_` columns asked for, visitor_id, all_events;
--   newest start first after the keyset (after_start, after_id), one page plus one row from each part
-- One row per session, combined: settled days read combined (sessions/settled-sessions.sql, with the
-- visitor id and events, before the keyset: sessions/listed-keyset.sql), the others regrouped from their partial rows
-- (sessions/regrouped-sessions.sql over the page's chosen sessions, in UNION ALL; left out when every day
-- of the window up to the keyset is settled, as there is no partial row to read). Each part is cut to the
-- page before they meet: ordered by sessions_settled's sort key (project_id, session_start, session_id),
-- ClickHouse reads it backwards from the keyset and stops after the page, so a page deep in the window
-- costs what the first one does; the regrouped part's page (`newest`, sessions/sessions-list-newest.sql) is
-- chosen before either part is read, and only its sessions' fields are combined.
-- When the regrouped days all come after the settled ones (the open edge) and the regrouped page is
-- full, every settled session starts after the page's last one in the list's order: the settled part is
-- then not read (sessions/regrouped-page-short.sql).
SELECT *
  FROM
  (
    /* @settled_sessions */
    ORDER BY session_start DESC, session_id DESC
    LIMIT {rowsToRead:UInt32}
  )
  /* @regrouped_sessions */
