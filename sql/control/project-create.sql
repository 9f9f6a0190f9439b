-- @name control.project-create
-- @returns nothing (insert)
-- One project row, its values bound (the CLI checked the id and the time zone first).
INSERT INTO projects (id, name, timezone, created_at, updated_at)
SELECT {id:String}, {name:String}, {timezone:String}, {now:DateTime64(3, 'UTC')}, {now:DateTime64(3, 'UTC')}
