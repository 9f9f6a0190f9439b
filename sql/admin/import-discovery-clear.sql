-- @name admin.import-discovery-clear
-- @returns nothing (deletes one discovery summary's rows of the project's days admin/import-discovery-find.sql
--   found, before they are rebuilt)
-- A mutation, waited for, as admin/import-resession-clear.sql. Killed before the rebuild, the days have no
-- rows at all, and the next run finds them again.
ALTER TABLE {summary:Identifier} DELETE
WHERE project_id = {projectId:String}
  AND toDate(bucket) IN (SELECT day FROM {found:Identifier})
SETTINGS mutations_sync = 2
