-- @name people.profiles_performed
-- @returns fragment: keeps the profiles with an event named `performedEvent`
AND id IN
(
  SELECT profile_id
  FROM events
  WHERE project_id = {projectId:String}
    AND name = {performedEvent:String}
)
