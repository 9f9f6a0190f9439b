// The session half of the table decider (queries/core/reads.ts): whether a session question's settled days
// are read from a rollup (counts per value and hour: session_rollup, page_rollup) or from their combined rows
// (sessions_settled, page_views_settled). Days not settled are regrouped from their partial rows either way.
import { HOUR_MS, boundsOnMultipleOf } from '../core/dates'
import { unfiltered, type Reads, type SortedQuestion } from '../core/reads'

/** What a breakdown's (or the entry and exit pages') settled sessions are read from. */
export type SessionReads = Extract<Reads, 'rollup' | 'settled'>
/** What `/pages` reads the settled days' page views from (`events`: none stored answers, all are regrouped). */
export type PageReads = Extract<Reads, 'rollup' | 'settled' | 'events'>

const QUARTER_HOUR_MS = 900_000

/**
 * Breakdowns and entry/exit pages read the rollup when no filter keeps a session out (it holds no filter's
 * columns) and the window's bounds fall on whole hours, as the rollup's hours do; else the settled sessions.
 */
export function sessionReads(query: SortedQuestion): SessionReads {
  return unfiltered(query) && boundsOnMultipleOf(query.window, HOUR_MS) ? 'rollup' : 'settled'
}

/**
 * Stored page views answer `/pages` when the window's bounds fall on quarter hours (as a stored view's
 * time does) and the views counted are picked by their page alone. Then the page rollup, when the bounds
 * fall on whole hours and no filter restricts the sessions (a session restriction, or a `name` filter that
 * keeps the sessions with such an event), else the stored page rows. Otherwise none: `events`.
 */
export function pageReads(query: SortedQuestion): PageReads {
  if (!boundsOnMultipleOf(query.window, QUARTER_HOUR_MS) || !query.sorted.viewConditionOnPage) return 'events'
  const sessionsRestricted = query.sorted.sessionRestriction !== null || query.sorted.nameFiltered
  return boundsOnMultipleOf(query.window, HOUR_MS) && !sessionsRestricted ? 'rollup' : 'settled'
}

/** Plan step of breakdowns and entry/exit pages, after the filters are sorted: `reads` (`sessionReads`). */
export const decideSessionReads = <Q extends SortedQuestion>(query: Q): Q & { reads: SessionReads } => ({
  ...query,
  reads: sessionReads(query),
})

/** Plan step of `/pages`, after the filters are sorted: `reads` (`pageReads`). */
export const decidePageReads = <Q extends SortedQuestion>(query: Q): Q & { reads: PageReads } => ({ ...query, reads: pageReads(query) })
