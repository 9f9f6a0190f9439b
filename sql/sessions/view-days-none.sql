-- @name sessions.view_days_none
-- @returns fragment: the WITH items of sessions/view-days-settled.sql when no stored page view answers: no day, and
--   every view of the read range ordered in the statement
CAST([], 'Array(Date)') AS view_days,
  CAST([], 'Array(UInt64)') AS view_compactions,
  {readFrom:DateTime64(3, 'UTC')} AS order_from,
  {readTo:DateTime64(3, 'UTC')} AS order_to
