-- @name admin.compact-views-drop
-- @returns nothing (a day that holds no page view any more has no partition)
ALTER TABLE page_views_settled DROP PARTITION {day:Date}
