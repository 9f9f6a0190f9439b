-- @name insights.dimension_sets
-- @returns member UInt8, prefix_value String, name_value String, session_count UInt64, view_count UInt64,
--   bounced UInt64, duration_total_ms Int64
-- the rows of several breakdowns of the same window, filters and page (queries/run/joined-runs.ts),
--   each as insights/dimension.sql gives them, and `member`: the index of the breakdown it answers
-- One GROUPING SETS pass over the window's sessions instead of one statement per breakdown, each of which
-- would read the same sessions again (docs/measurements.md, "Scheduling").
-- TRICKY: a grouping set leaves the key columns outside it at their default (''), so `member` is told by
-- the GROUPING bit mask of every set's columns (0 = in the set), and each member reads only its own.
/* @performed_with */SELECT
  /* @member */ AS member,
  /* @prefix */ AS prefix_value,
  /* @name */ AS name_value,
  /* @kept_counts */
GROUP BY GROUPING SETS (/* @grouping_sets */)
ORDER BY member ASC, session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64} BY member
