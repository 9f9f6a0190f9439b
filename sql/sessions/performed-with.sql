-- @name sessions.performed_with
-- @returns fragment: a WITH before a statement's first SELECT naming a filter tree's performed sessions
--   `performed_sessions` (the name queries/core/filter-tree.ts's conditions read them by) for the whole statement
WITH performed_sessions AS
(
/* @performed_scan */
)
