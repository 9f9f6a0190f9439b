-- @name export.count
-- @returns total UInt64
-- one row: total, the number of events an export matches
SELECT count() AS total
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {start:DateTime64(3, 'UTC')}
  AND created_at < {end:DateTime64(3, 'UTC')}/* @conditions */
