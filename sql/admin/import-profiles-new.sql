-- @name admin.import_profiles_new
-- @returns fragment: the staged profile versions newer than every version the project holds of the same profile, each once
-- A version's key is the one readers take the newest by (people/profile.sql). TRICKY: merges of the
-- ReplacingMergeTree drop older versions, so "already stored" cannot be told by finding the same row; a
-- version no newer than the stored newest could never be read, so it is not written: a rerun writes none.
SELECT staged.*
FROM {stage:Identifier} AS staged
LEFT ANY JOIN
(
  SELECT
    id,
    max((last_seen_at, created_at, first_name, last_name, email, avatar, mapKeys(properties), mapValues(properties), groups, is_external))
      AS newest,
    1 AS known
  FROM profiles
  WHERE project_id = {projectId:String}
    AND id IN (SELECT id FROM {stage:Identifier})
  GROUP BY id
) AS stored ON stored.id = staged.id
WHERE stored.known = 0
  OR (staged.last_seen_at, staged.created_at, staged.first_name, staged.last_name, staged.email, staged.avatar,
      mapKeys(staged.properties), mapValues(staged.properties), staged.groups, staged.is_external) > stored.newest
LIMIT 1 BY staged.id, staged.last_seen_at, staged.created_at, staged.first_name, staged.last_name, staged.email, staged.avatar,
  mapKeys(staged.properties), mapValues(staged.properties), staged.groups, staged.is_external
