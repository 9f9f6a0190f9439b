// The session fields' SQL now lives with the sessions wing (queries/sessions/session-fields.ts); the compaction's
// modules still import it from here until they move beside it.
export * from '../sessions/session-fields'
