// Query priorities of the gateway's statements (ClickHouse's `priority` setting). While a statement of a higher
// priority (a smaller number, above 0) runs, one of a lower priority pauses at each block it reads, for at most
// `low_priority_query_wait_time_ms` (1 s by default) or until that statement ends; 0 takes no part either way.
// The gateway's questions and its own compaction share the engine's cores: questions run at
// QUESTION_PRIORITY (server/embedded-lanes.ts, server/server-lanes.ts) and a compaction's statements that
// read a day or a whole table at BACKGROUND_PRIORITY (server/admin/compact.ts), so a compaction yields to the
// questions instead of taking half the cores from them (`npm run bench -- compaction`; docs/measurements.md,
// "Compaction"). On a server, other clients' statements at 0 take no part, and those they send at a number
// above 1 pause for the questions too.
// Embedded exports stay at 0: an open stream is a running statement for as long as its client reads, and
// would hold a compaction back for all that time (a server's exports are keyset chunks, questions each).
// Heavy questions (queries/run/heavy.ts: long windows, many series) run at HEAVY_PRIORITY beside the light ones,
// so they pause at each block while a light question runs, and a compaction pauses while they run (a server's
// export chunks too, which take turns on the heavy lane).
export const QUESTION_PRIORITY = 1
export const HEAVY_PRIORITY = 5
export const BACKGROUND_PRIORITY = 10
