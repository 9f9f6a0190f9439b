-- @name sessions.regrouped_page_short
-- @returns fragment: a condition, false when the regrouped page (`newest`) is full: then every settled session comes
--   after the page's last one, and the settled part is not read (its condition is a constant once `newest` is)
length(newest.1) < {rowsToRead:UInt32}
