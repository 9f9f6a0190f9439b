-- @name openpanel.page-count
-- @returns total_pages UInt64
-- one row: total_pages
-- The pages a `/pages` request lists over all of its pages: the rows of its statement (`pages`,
-- insights/pages.sql read to its last row), counted.
SELECT count() AS total_pages
FROM
(
  /* @listed_pages */
) AS listed
