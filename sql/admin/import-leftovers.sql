-- @name admin.import-leftovers
-- @returns name String
-- rows: name
-- Staging tables of earlier imports in this database (a killed import cannot drop its own). Their names
-- carry their creation time: import_stage_<unix ms>_<random hex>, and the sessions a rerun rebuilds the
-- table's name plus _sessions (admin/import-resession-find.sql), and the days whose discovery summaries it rebuilds
-- plus _days (admin/import-discovery-find.sql).
SELECT name
FROM system.tables
WHERE database = currentDatabase() AND match(name, '^import_stage_[0-9]+_[0-9a-f]+(_sessions|_days)?$')
ORDER BY name
