-- @name admin.migration-record
-- @returns nothing (insert)
-- Records a migration as applied, once all of its statements have run.
INSERT INTO quarry_migrations (name, applied_at)
SELECT {name:String}, {appliedAt:DateTime64(3, 'UTC')}
