-- @name admin.import_profiles_new
-- @returns fragment: the staged profile versions later than every version the project holds of the same profile, each once
-- TRICKY: merges of the ReplacingMergeTree drop older versions, so "already stored" cannot be told by finding
-- the same row. Readers take the largest `last_seen_at` (people/profile.sql); a version whose `last_seen_at` is not later
-- than the stored newest's is not written, so a rerun writes none (and never brings back an older version).
SELECT staged.*
FROM {stage:Identifier} AS staged
LEFT ANY JOIN
(
  SELECT id, max(last_seen_at) AS newest, 1 AS known
  FROM profiles
  WHERE project_id = {projectId:String}
    AND id IN (SELECT id FROM {stage:Identifier})
  GROUP BY id
) AS stored ON stored.id = staged.id
WHERE stored.known = 0
  OR staged.last_seen_at > stored.newest
LIMIT 1 BY staged.id, staged.last_seen_at, staged.created_at, staged.first_name, staged.last_name, staged.email, staged.avatar,
  mapKeys(staged.properties), mapValues(staged.properties), staged.groups, staged.is_external
