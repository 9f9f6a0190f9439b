-- @name admin.compact-swap
-- @returns nothing (swaps one day's partition in whole, atomically, from the staging table)
ALTER TABLE sessions_settled REPLACE PARTITION {day:Date} FROM sessions_settled_stage
