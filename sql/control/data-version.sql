-- @name control.data-version
-- @returns one row: events, the number of rows in `events` (the result cache's data version)
-- Without bound parameters, so the embedded engine may run it beside data statements. ClickHouse
-- answers a bare count() from part metadata (it reads no column), on a server and through a
-- Distributed table alike. Events are only appended, so any insert, late ones for settled days
-- included, changes it.
SELECT count() AS events FROM events
