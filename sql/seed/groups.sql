-- @name seed.groups
-- @returns nothing (insert)
-- One group (a company) per group id the project's events carry, so it runs after seed.events: its name,
-- industry and size derived from hashes of the seed and the group id (deterministic), created at its
-- first event, one version (the creation time in milliseconds).
INSERT INTO groups (id, project_id, type, name, properties, created_at, version)
WITH
  {seed:UInt64} AS seed,
  ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne', 'Wonka', 'Tyrell', 'Soylent', 'Cyberdyne',
   'Aperture', 'Vandelay', 'Pied Piper', 'Dunder', 'Oscorp', 'Gringotts', 'Monarch', 'Nakatomi', 'Massive'] AS stems,
  ['Labs', 'Inc', 'GmbH', 'Systems', 'Group', 'Works', 'Studio', 'AB'] AS suffixes,
  ['software', 'retail', 'finance', 'health', 'media', 'logistics'] AS industries,
  ['1-10', '11-50', '51-200', '201-1000'] AS sizes
SELECT
  group_id AS id,
  {projectId:String} AS project_id,
  'company' AS type,
  concat(stems[cityHash64(seed, group_id, 80) % length(stems) + 1], ' ', suffixes[cityHash64(seed, group_id, 81) % length(suffixes) + 1])
    AS name,
  map('industry', industries[cityHash64(seed, group_id, 82) % length(industries) + 1],
      'size', sizes[cityHash64(seed, group_id, 83) % length(sizes) + 1]) AS properties,
  first_seen AS created_at,
  toUInt64(toUnixTimestamp64Milli(first_seen)) AS version
FROM
(
  SELECT group_id, min(created_at) AS first_seen
  FROM events
  ARRAY JOIN groups AS group_id
  WHERE project_id = {projectId:String}
  GROUP BY group_id
)
