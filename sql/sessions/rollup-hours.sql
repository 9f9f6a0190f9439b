-- @name sessions.rollup_hours
-- @returns fragment: a condition keeping the session rollup's rows of the breakdowns `dimensions` by the hour, over the window
dimension IN (/* @dimensions */)
  AND hour >= {start:DateTime64(3, 'UTC')}
  AND hour < {end:DateTime64(3, 'UTC')}
