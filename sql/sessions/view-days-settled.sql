-- @name sessions.view_days_settled
-- @returns fragment: WITH items for a statement over page views: view_days and view_compactions, the settled days whose
--   stored page views answer and their compactions, and order_from, order_to, the range of views the others
--   are regrouped from (queries/sessions/settled-days.ts, SettledParams)
{settledDays:Array(Date)} AS view_days,
  CAST({settledCompactions:Array(String)}, 'Array(UInt64)') AS view_compactions,
  {regroupFrom:DateTime64(3, 'UTC')} AS order_from,
  {regroupTo:DateTime64(3, 'UTC')} AS order_to
