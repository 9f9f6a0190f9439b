-- @name insights.member_join
-- @returns fragment: each regrouped session once under every breakdown asked together, as `member_value`: (index,
--   prefix, value)
ARRAY JOIN [/* @members */] AS member_value
