-- @name admin.import-resession-clear
-- @returns nothing (deletes the partial rows of the sessions admin/import-resession-find.sql found, before
--   they are rebuilt)
-- A mutation, waited for (`sessions` has projections, which a lightweight delete refuses). Killed
-- before the rebuild, the sessions have no rows at all, and the next run finds them again.
ALTER TABLE sessions DELETE
WHERE project_id = {projectId:String}
  AND session_id IN (SELECT session_id FROM {found:Identifier})
SETTINGS mutations_sync = 2
