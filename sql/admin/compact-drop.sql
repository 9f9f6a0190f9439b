-- @name admin.compact-drop
-- @returns nothing (a day that holds no session start any more has no partition)
ALTER TABLE sessions_settled DROP PARTITION {day:Date}
