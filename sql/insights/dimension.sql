-- @name insights.dimension
-- @returns prefix_value String, name_value String, session_count UInt64, view_count UInt64, bounced UInt64,
--   duration_total_ms Int64
-- one row per (prefix, name) of the session attribute, in answer order, one page plus one row:
--   prefix_value, name_value, session_count, view_count, bounced, duration_total_ms
-- Shared by every breakdown resource; the attribute (and its prefix) come from queries/core/registry.ts.
-- `kept_keys`: a compared question (compare=previous|year) keeps only the rows of the keys its main answer
--   kept, bound as arrays (queries/core/compare.ts); nothing otherwise.
/* @performed_with */SELECT
  /* @prefix */ AS prefix_value,
  /* @name */ AS name_value,
  /* @kept_counts */
GROUP BY prefix_value, name_value/* @kept_keys */
ORDER BY session_count DESC, prefix_value ASC, name_value ASC
LIMIT {rowsToRead:UInt32} OFFSET {offset:UInt64}
