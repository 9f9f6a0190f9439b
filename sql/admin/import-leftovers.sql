-- @name admin.import-leftovers
-- @returns rows: name
-- Staging tables of earlier imports in this database (a killed import cannot drop its own). Their names
-- carry their creation time: import_stage_<unix ms>_<random hex>.
SELECT name
FROM system.tables
WHERE database = currentDatabase() AND match(name, '^import_stage_[0-9]+_[0-9a-f]+$')
ORDER BY name
