-- @name admin.compact-stage-check
-- @returns rows UInt64, foreign_rows UInt64
-- one row: rows (in a staging table), and foreign_rows, those not of the day and compaction given
-- A run attaches its staging table only when every row there is its own: another run that rewrote the
-- staging table meanwhile would otherwise have its rows recorded under this run's number.
SELECT count() AS rows, countIf(day != {day:Date} OR compaction != {compaction:UInt64}) AS foreign_rows
FROM {stage:Identifier}
