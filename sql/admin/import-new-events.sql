-- @name admin.import-new-events
-- @returns fragment: rows: line, then the columns of `events`
-- The staged events that `events` does not hold yet: an id already stored for the project (an earlier
-- run of the same file, whole or cut short) or earlier in the file is skipped, so reruns never duplicate.
-- The stored side is read only over the staged time range, which the table's key prunes.
SELECT *
FROM {stage:Identifier}
WHERE id NOT IN (
  SELECT id FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= (SELECT min(created_at) FROM {stage:Identifier})
    AND created_at <= (SELECT max(created_at) FROM {stage:Identifier})
)
ORDER BY line
LIMIT 1 BY id
