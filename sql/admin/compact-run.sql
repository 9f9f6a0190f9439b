-- @name admin.compact-run
-- @returns nothing (writes the run under way, after admin/compact-run-clear.sql emptied the table)
-- The run's whole-table checks read it (admin/compaction-run.sql) and bind nothing, so that they run beside
-- the gateway's data statements instead of holding chDB's chain of bound statements (migrations/020_compaction_run.sql).
INSERT INTO compaction_run (last_day, lookback_seconds, keep_ms, definition)
VALUES ({lastDay:Date}, {lookbackSeconds:UInt32}, {keepMs:UInt64}, {definition:UInt64})
