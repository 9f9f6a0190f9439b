-- @name admin.import_people_count
-- @returns staged Nullable(UInt64), new_rows Nullable(UInt64)
-- one row: the staged versions of a profiles or groups import, and how many of them are new
SELECT
  (SELECT count() FROM {stage:Identifier}) AS staged,
  (SELECT count() FROM (/* @new_people */)) AS new_rows
