-- @name admin.compact-views-swap
-- @returns nothing (swaps one day's partition in whole, atomically, from the staging table)
ALTER TABLE page_views_settled REPLACE PARTITION {day:Date} FROM page_views_settled_stage
