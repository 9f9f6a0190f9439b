-- @name insights.rollup_counts
-- @returns fragment: a breakdown's counts read from the session rollup, with the FROM they are summed over:
--   session_count, view_count, bounced, duration_total_ms
-- The settled days' sessions come counted per value and hour of their start (`rollup_rows`, from the sessions
-- wing: queries/sessions/rollup-rows.ts); the other days' sessions are regrouped from their partial rows,
-- each counted once under its value, or under every member's (`member_join`, insights/member-join.sql) when
-- several breakdowns are asked together. Shared by insights/dimension-rollup.sql and
-- insights/dimension-sets-rollup.sql.
sum(sessions) AS session_count,
  sum(views) AS view_count,
  sum(bounced_sessions) AS bounced,
  sum(duration) AS duration_total_ms
FROM
(
  /* @rollup_rows */

  UNION ALL

  SELECT/* @member */
    /* @prefix */ AS prefix_value,
    /* @name */ AS name_value,
    toUInt64(1) AS sessions,
    all_views AS views,
    toUInt64(all_views <= 1) AS bounced_sessions,
    duration_ms AS duration
  FROM
  (
    /* @regrouped_sessions */
  ) AS regrouped
  /* @member_join */
) AS counted
