-- @name admin.import-count
-- @returns staged Nullable(UInt64), new_events Nullable(UInt64)
-- rows: staged, new_events
SELECT
  (SELECT count() FROM {stage:Identifier}) AS staged,
  (SELECT count() FROM (/* @new_events */)) AS new_events
