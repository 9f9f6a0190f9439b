-- @name people.profiles_min_sessions
-- @returns fragment: keeps the profiles with at least `minSessions` sessions (a session's visitor is its first
--   event's: its partial rows combined, see profile-sessions.sql)
AND id IN
(
  SELECT profile
  FROM
  (
    SELECT argMin(profile_id, first_event_key) AS profile
    FROM sessions
    WHERE project_id = {projectId:String}
    GROUP BY session_id
  )
  GROUP BY profile
  HAVING count() >= {minSessions:UInt32}
)
