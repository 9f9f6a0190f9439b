-- @name people.profiles_inactive
-- @returns fragment: keeps the profiles without an event at or after `activeSince` (inactiveDays)
AND id NOT IN
(
  SELECT profile_id
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {activeSince:DateTime64(3, 'UTC')}
)
