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
-- The conditions on a profile's events and sessions (people/profiles-*.sql) are in the statement only when asked.
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
  WHERE project_id = {projectId:String}
    AND ({email:String} = '' OR positionCaseInsensitiveUTF8(email, {email:String}) > 0)
    AND arrayAll(
      token -> positionCaseInsensitiveUTF8(id, token) > 0
        OR positionCaseInsensitiveUTF8(email, token) > 0
        OR positionCaseInsensitiveUTF8(first_name, token) > 0
        OR positionCaseInsensitiveUTF8(last_name, token) > 0
        OR positionCaseInsensitiveUTF8(concat(first_name, ' ', last_name), token) > 0,
      {nameTokens:Array(String)})
    AND arrayAll((key, value) -> properties[key] = value, {propertyKeys:Array(String)}, {propertyValues:Array(String)})
    -- Each filter on the text it reads (a property's value, '' when the key is absent, or a column's) and its
    -- values (its slice of the flat list).
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
      arrayMap(
        field -> if(startsWith(field, 'properties.'), properties[substring(field, 12)],
          multiIf(field = 'email', email, field = 'first_name', first_name, field = 'last_name', last_name, id)),
        {filterFields:Array(String)}),
      {filterOperators:Array(String)},
      arrayMap((first, count) -> arraySlice({filterValues:Array(String)}, first, count), {filterFirsts:Array(UInt32)}, {filterCounts:Array(UInt32)}))
    /* @people_activity */
    AND /* @people_after */
  ORDER BY /* @people_order */
  LIMIT {rows:UInt32}
)
ORDER BY /* @people_order */
