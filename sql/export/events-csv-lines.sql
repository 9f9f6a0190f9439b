-- @name export.events-csv-lines
-- @returns line String
-- the export's CSV records, one a row, written as TabSeparatedRaw, so the output is the CSV body
--   itself: each record ends in CR, and the format's own line feed after it makes the CRLF
-- The cells are quoted as export.events-csv quotes them (see queries/export/export-csv.ts); TabSeparatedRaw
-- escapes nothing, so tabs and line breaks inside quoted cells stay as they are. The rows statement
-- inside keeps the table's key order (see export.events), which a streamed read keeps block after block.
SELECT concat(/* @cells */, '\r') AS line
FROM (/* @rows */) AS chunk
