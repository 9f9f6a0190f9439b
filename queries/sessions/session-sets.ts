// The conditions that keep a question's sessions, as the wing places them: the filters come compiled and sorted
// by the plan (`decideFilters`); these only place them, and the statement binds their values once (the
// source's params).
import { andClauses, compileInner, sqlOnly, type Fragment } from '../core/compiled'
import type { SessionField } from '../core/registry'
import { combinedFields } from './session-fields'
import type { SessionQuestion } from './question'
import type { SessionSource } from './source'

export const EMPTY: Fragment = sqlOnly('')

const orNull = (sql: string | null): Fragment | null => (sql === null ? null : sqlOnly(sql))

/**
 * A filter tree's performed sessions named once for the whole statement, which every place of the tree reads
 * by name (queries/core/filter-tree.ts); nothing for other filters. TRICKY: a name of the outermost WITH is
 * seen by every SELECT of the statement, both of a UNION ALL and every subquery, by the engine's
 * `enable_global_with_statement` (on by default); with it off, the other SELECTs would not know the name.
 */
function namedPerformed(source: SessionSource, file: string, place: (sql: string) => string): Fragment {
  const scan = source.question.sorted.performedSessions
  if (scan === null) return EMPTY
  return sqlOnly(place(compileInner(file, source.params, { performed_scan: sqlOnly(scan) }).sql))
}

/** The performed sessions as a WITH before a statement's first SELECT (the `performed_with` marker). */
export const performedWith = (source: SessionSource): Fragment => namedPerformed(source, 'sessions/performed-with.sql', (sql) => `${sql}\n`)

/** The performed sessions as the first item of the WITH a statement opens with (the `performed_cte` marker). */
export const performedInWith = (source: SessionSource): Fragment =>
  namedPerformed(source, 'sessions/performed-first.sql', (sql) => `\n  ${sql}`)

/**
 * Each field combined over a session's partial rows (`argMin(col, first_event_key) AS s_col`, an exit by its
 * latest view), for a GROUP BY session over `sessions` (sessions/session-fields.ts).
 */
export function attributeColumns(attributes: readonly SessionField[]): Fragment {
  return sqlOnly(combinedFields(attributes))
}

/** Every event-field filter ANDed (`name` included), or null. */
export const eventConditions = (question: SessionQuestion): Fragment | null => orNull(question.sorted.eventSelection)

/** Every event-field filter but `name` ANDed (the filters a counted page view must match), or null. */
export const viewConditions = (question: SessionQuestion): Fragment | null => orNull(question.sorted.viewCondition)

/** Which views count: those matching every event-field filter other than `name` (`1` without any). */
export const viewMatch = (question: SessionQuestion): Fragment => viewConditions(question) ?? sqlOnly('1')

/** `AND ...` restricting grouped sessions by the session-attribute filters. */
export function attributeRestriction(question: SessionQuestion, conditions: Fragment[] = [], indent = '  '): Fragment {
  const restriction = orNull(question.sorted.sessionRestriction)
  return andClauses([...(restriction ? [restriction] : []), ...conditions], indent)
}

/**
 * `session_id IN (...)` for sessions (started from the lookback before the window to its end) whose
 * attributes pass the session-attribute filters (sessions/sessions-matching.sql), or null when there are
 * none. A tree that reads no attribute (only `performed` leaves) is itself a condition on session_id,
 * placed as it is.
 */
export function sessionsMatchingAttributes(source: SessionSource): Fragment | null {
  const { question } = source
  if (question.sorted.sessionRestriction === null) return null
  if (question.sorted.sessionAttributes.length === 0) return sqlOnly(question.sorted.sessionRestriction)
  return compileInner('sessions/sessions-matching.sql', source.params, {
    attributes: attributeColumns(question.sorted.sessionAttributes),
    session_filters: attributeRestriction(question),
  })
}

/** `session_id IN (...)` for sessions with an event matching every event-field filter (sessions/sessions-with-event.sql), or null when there are none. */
export function sessionsWithEvent(source: SessionSource): Fragment | null {
  const events = eventConditions(source.question)
  if (!events) return null
  return compileInner('sessions/sessions-with-event.sql', source.params, { event_filters: events })
}
