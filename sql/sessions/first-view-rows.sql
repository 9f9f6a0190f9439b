-- @name sessions.first_view_rows
-- @returns fragment: whether a page row (page_views_settled) is its session's first view of the page in the window: its
--   previous view lies before the window's start
toUInt32(previous_at < {start:DateTime64(3, 'UTC')})
