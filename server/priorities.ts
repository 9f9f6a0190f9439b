// Query priorities of the embedded engine (ClickHouse's `priority` setting). While a statement of a higher
// priority (a smaller number, above 0) runs, one of a lower priority pauses at each block it reads, for at most
// `low_priority_query_wait_time_ms` (1 s by default) or until that statement ends; 0 takes no part either way.
// Embedded, the gateway's questions and its own compaction share this machine's cores: questions run at
// QUESTION_PRIORITY (server/embedded-lanes.ts) and a compaction's statements that read a day or a whole table
// at BACKGROUND_PRIORITY (server/admin/compact.ts), so a compaction yields to the questions instead of taking
// half the cores from them. On 10M events, `country` asked every 20 ms while 8 days were compacted (two runs
// each way, `npm run bench -- compaction`): see the README.
// A server keeps questions at 0 (its own settings profiles decide there), where the compaction's setting
// only yields to other clients' prioritised statements. Exports stay at 0: an open stream is a running
// statement for as long as its client reads, and would hold a compaction back for all that time.
export const QUESTION_PRIORITY = 1
export const BACKGROUND_PRIORITY = 10
