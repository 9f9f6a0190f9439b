-- @name admin.import_groups_new
-- @returns fragment: the staged group versions newer than every version the project holds of the same group, each once
-- A version's key is the one readers take the newest by (people/groups.sql); as for profiles
-- (import-profiles-new.sql), a version no newer than the stored newest is not written: a rerun writes none.
SELECT staged.*
FROM {stage:Identifier} AS staged
LEFT ANY JOIN
(
  SELECT
    id,
    max((version, deleted, type, name, created_at, mapKeys(properties), mapValues(properties))) AS newest,
    1 AS known
  FROM groups
  WHERE project_id = {projectId:String}
    AND id IN (SELECT id FROM {stage:Identifier})
  GROUP BY id
) AS stored ON stored.id = staged.id
WHERE stored.known = 0
  OR (staged.version, staged.deleted, staged.type, staged.name, staged.created_at, mapKeys(staged.properties),
      mapValues(staged.properties)) > stored.newest
LIMIT 1 BY staged.id, staged.version, staged.deleted, staged.type, staged.name, staged.created_at, mapKeys(staged.properties),
  mapValues(staged.properties)
