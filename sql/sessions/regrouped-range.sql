-- @name sessions.regrouped_range
-- @returns fragment: the condition keeping the events of the regrouped days' read range (`regroup_from`,
--   `regroup_to`, named by the statement's WITH)
AND created_at >= regroup_from
  AND created_at < regroup_to
