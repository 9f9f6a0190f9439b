-- @name admin.import-count
-- @returns rows: staged, new_events
SELECT
  (SELECT count() FROM {stage:Identifier}) AS staged,
  (SELECT count() FROM (/* @new_events */)) AS new_events
