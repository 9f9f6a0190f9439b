-- @name sessions.first_view_rollup
-- @returns fragment: the sessions a page rollup row (page_rollup) counts first in the window: its page rows, when their
--   previous view lies before the window's start (so before its hour), else none
if(previous_hour < {start:DateTime64(3, 'UTC')}, page_rows, 0)
