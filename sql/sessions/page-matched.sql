-- @name sessions.page_matched
-- @returns fragment: the condition keeping a settled session with a page that matches the page-only event
--   filters (`page_matches`, sessions/window-sessions.sql)
AND has(page_matches, 1)
