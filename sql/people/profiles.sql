-- @name people.profiles
-- @returns id String, first_name String, last_name String, email String, avatar String,
--   properties Map(String, String), project_id String, is_external Bool, created_at String, last_seen_at String,
--   groups Array(String), created_ms Int64
-- the project's profiles kept by the conditions, each as its newest version (docs/definitions.md, "People"),
--   ordered by created_at then id, both in the asked direction, from after the keyset on: one row more than
--   the page, which tells whether another page follows
-- TRICKY: profiles is a ReplacingMergeTree(last_seen_at) whose merges keep old versions until they run; a
-- profile is its version with the largest last_seen_at, of equal ones the one written last: what merges
-- keep and FINAL reads, so the list reads FINAL (the whole project's profiles are read either way, and FINAL
-- reads them without copying each version; the single reads take the same version with argMax, see
-- profile.sql). Dates are formatted for the page's rows only.
-- The conditions (people/profiles-*.sql: on the profile's columns, its events and its sessions) are in the
-- statement only when asked: an unasked one would still be evaluated on every profile (docs/measurements.md).
SELECT
  id, first_name, last_name, email, avatar, properties, {projectId:String} AS project_id, is_external,
  concat(substring(formatDateTime(created, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS created_at,
  concat(substring(formatDateTime(last_seen, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS last_seen_at,
  groups,
  created_ms
FROM
(
  SELECT
    id, first_name, last_name, email, avatar, properties, is_external, groups,
    profiles.created_at AS created,
    profiles.last_seen_at AS last_seen,
    toUnixTimestamp64Milli(profiles.created_at) AS created_ms
  FROM profiles FINAL
  WHERE project_id = {projectId:String}/* @people_conditions */
    AND /* @people_after */
  ORDER BY /* @people_order */
  LIMIT {rows:UInt32}
)
ORDER BY /* @people_order */
