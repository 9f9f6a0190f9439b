-- @name admin.compact-older
-- @returns the day's compactions other than the new one: compaction (sessions_settled or page_views_settled)
SELECT DISTINCT compaction
FROM {table:Identifier}
WHERE day = {day:Date}
  AND compaction != {compaction:UInt64}
