-- @name people.profiles
-- @returns id String, first_name String, last_name String, email String, avatar String,
--   properties Map(String, String), project_id String, is_external Bool, created_at String, last_seen_at String,
--   groups Array(String), created_ms Int64
-- the project's profiles kept by the conditions, each as its newest version (docs/definitions.md, "People"),
--   ordered by created_at then id, both in the asked direction, from after the keyset on: one row more than
--   the page, which tells whether another page follows
-- TRICKY: profiles is a ReplacingMergeTree(last_seen_at) whose merges keep old versions until they run; a
-- profile is its version with the largest last_seen_at, of equal ones the one written last (as merges and
-- FINAL keep it: the part with the later block, whose number begins the part's name; a part holds one row
-- per profile, as a block is collapsed on insert), read with argMax, the same merged or not.
-- The conditions on a profile's events and sessions (people/profiles-*.sql) are in the statement only when asked.
WITH latest AS
(
  SELECT
    id,
    argMax(
      (first_name, last_name, email, avatar, properties, is_external, created_at, last_seen_at, groups),
      (last_seen_at, toUInt64(splitByChar('_', _part)[2]))
    ) AS v
  FROM profiles
  WHERE project_id = {projectId:String}
  GROUP BY id
)
SELECT
  id, first_name, last_name, email, avatar, properties, project_id, is_external,
  concat(substring(formatDateTime(created, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS created_at,
  concat(substring(formatDateTime(last_seen, '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00') AS last_seen_at,
  groups,
  toUnixTimestamp64Milli(created) AS created_ms
FROM
(
  SELECT
    id,
    v.1 AS first_name,
    v.2 AS last_name,
    v.3 AS email,
    v.4 AS avatar,
    v.5 AS properties,
    {projectId:String} AS project_id,
    v.6 AS is_external,
    v.7 AS created,
    v.8 AS last_seen,
    v.9 AS groups,
    -- The text each filter reads: a property's value ('' when the key is absent) or a column's.
    arrayMap(
      field -> if(startsWith(field, 'properties.'), v.5[substring(field, 12)],
        multiIf(field = 'email', v.3, field = 'first_name', v.1, field = 'last_name', v.2, id)),
      {filterFields:Array(String)}) AS filter_texts,
    -- Each filter's values: its slice of the flat list.
    arrayMap((first, count) -> arraySlice({filterValues:Array(String)}, first, count),
      {filterFirsts:Array(UInt32)}, {filterCounts:Array(UInt32)}) AS filter_values
  FROM latest
)
WHERE ({email:String} = '' OR positionCaseInsensitiveUTF8(email, {email:String}) > 0)
  AND arrayAll(
    token -> positionCaseInsensitiveUTF8(id, token) > 0
      OR positionCaseInsensitiveUTF8(email, token) > 0
      OR positionCaseInsensitiveUTF8(first_name, token) > 0
      OR positionCaseInsensitiveUTF8(last_name, token) > 0
      OR positionCaseInsensitiveUTF8(concat(first_name, ' ', last_name), token) > 0,
    {nameTokens:Array(String)})
  AND arrayAll((key, value) -> properties[key] = value, {propertyKeys:Array(String)}, {propertyValues:Array(String)})
  AND arrayAll(
    (text, operator, values) -> multiIf(
      operator = 'is', has(values, text),
      operator = 'isNot', NOT has(values, text),
      operator = 'contains', arrayExists(value -> positionCaseInsensitiveUTF8(text, value) > 0, values),
      operator = 'doesNotContain', NOT arrayExists(value -> positionCaseInsensitiveUTF8(text, value) > 0, values),
      operator = 'startsWith', arrayExists(value -> startsWith(lowerUTF8(text), lowerUTF8(value)), values),
      operator = 'endsWith', arrayExists(value -> endsWith(lowerUTF8(text), lowerUTF8(value)), values),
      operator = 'isNull', text = '',
      text != ''),
    filter_texts, {filterOperators:Array(String)}, filter_values)
  /* @people_activity */
  AND /* @people_after */
ORDER BY /* @people_order */
LIMIT {rows:UInt32}
