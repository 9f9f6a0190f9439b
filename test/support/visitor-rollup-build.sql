-- @name test.visitor-rollup-build
-- @returns nothing (insert)
-- The build of a fifth combined table that test/unit/combined-tables.test.ts declares beside the four:
-- a day's distinct visitors per breakdown value, from the sessions the same compaction just built (still in
-- their staging table), as the session rollup's build reads them. Not a table of the gateway.
INSERT INTO visitor_rollup_stage
/* @job */
SELECT
  project_id,
  day,
  compaction,
  breakdown.1 AS dimension,
  toString(breakdown.2) AS prefix,
  toString(breakdown.3) AS name,
  count(DISTINCT visitor_key) AS visitors
FROM sessions_settled_stage
ARRAY JOIN [/* @breakdowns */] AS breakdown
WHERE day = job_day
  AND compaction = job_compaction
GROUP BY project_id, day, compaction, dimension, prefix, name
