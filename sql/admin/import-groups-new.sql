-- @name admin.import_groups_new
-- @returns fragment: the staged group versions later than every version the project holds of the same group, each once
-- TRICKY: merges of the ReplacingMergeTree drop older versions, so "already stored" cannot be told by finding
-- the same row. Readers take the largest `version` (people/groups.sql); a version whose `version` is not later
-- than the stored newest's is not written, so a rerun writes none (and never brings back an older version).
SELECT staged.*
FROM {stage:Identifier} AS staged
LEFT ANY JOIN
(
  SELECT id, max(version) AS newest, 1 AS known
  FROM groups
  WHERE project_id = {projectId:String}
    AND id IN (SELECT id FROM {stage:Identifier})
  GROUP BY id
) AS stored ON stored.id = staged.id
WHERE stored.known = 0
  OR staged.version > stored.newest
LIMIT 1 BY staged.id, staged.version, staged.deleted, staged.type, staged.name, staged.created_at, mapKeys(staged.properties),
  mapValues(staged.properties)
