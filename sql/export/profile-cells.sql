-- @name export.profile-cells
-- @returns fragment: per profile of an export chunk: profileKey (its id) and profileJson, the profile as the JSON
--   export writes it (the fields of export.profiles, in that order)
-- TRICKY: ClickHouse's JSON writers escape '/' as '\/' (JavaScript's do not); every '/' is escaped, so
-- dropping the backslash before each one gives JSON.stringify's text.
SELECT
  id AS profileKey,
  replaceAll(formatRowNoNewline('JSONEachRow', id, firstName, lastName, email, avatar, properties, createdAt, lastSeenAt), '\\/', '/') AS profileJson
FROM (/* @profiles */)
