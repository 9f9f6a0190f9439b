-- @name sessions.performed_first
-- @returns fragment: the first item of the WITH a statement opens with, naming a filter tree's performed sessions
--   `performed_sessions` (the name queries/core/filter-tree.ts's conditions read them by)
performed_sessions AS
  (
/* @performed_scan */
  ),
