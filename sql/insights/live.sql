-- @name insights.live
-- @returns visitors UInt64
-- one row: visitors
-- Live visitors (docs/definitions.md): distinct profile_id with any event in the last five minutes.
SELECT uniqExact(profile_id) AS visitors
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {since:DateTime64(3, 'UTC')}
  AND created_at <= {now:DateTime64(3, 'UTC')}
