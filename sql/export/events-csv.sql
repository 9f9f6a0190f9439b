-- @name export.events-csv
-- @returns rows UInt64, lastAtMs Int64, lastId String, text String
-- one row for a keyset chunk of the export, written as TabSeparatedRaw: rows, the keyset of its
--   last row (lastAtMs, lastId), then text (its CSV records, each ending in CRLF), raw
-- TRICKY: ClickHouse's CSV format quotes every string, while the export quotes only the cells that need
-- it (RFC 4180: a comma, a double quote or a line break). So the engine writes each record itself from
-- the cells queries/export/export-csv.ts lists: a text cell with a special character is quoted, its " doubled,
-- and one that starts with = + - @, a tab or a CR is quoted with a leading ' (OWASP's CSV-injection
-- rule; numbers are left alone, so -33.9 stays a number).
-- The chunk is gathered into one text value, in export order, so JavaScript decodes one string per chunk
-- instead of a row at a time; written raw (no JSON escaping to undo), after three fields without tabs.
-- The rows statement inside keeps the table's key order (see export.events).
SELECT
  count() AS rows,
  toUnixTimestamp64Milli(min(createdAtKey)) AS lastAtMs,
  argMin(id, (createdAtKey, idKey)) AS lastId,
  arrayStringConcat(arrayMap(record -> record.3, arrayReverseSort(record -> (record.1, record.2), groupArray((createdAtKey, idKey, line))))) AS text
FROM (
  SELECT createdAtKey, idKey, id, concat(/* @cells */, '\r\n') AS line
  FROM (/* @rows */) AS chunk/* @profiles */
)
