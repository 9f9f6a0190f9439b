// What the sessions wing needs of a question to assemble its sessions: the project, the window and the read
// range around it, the sorted filters, and the settled check's rows. A route's planned query is one; the wing
// reads nothing else of it, so it imports nothing from the routes.
import type { Window } from '../core/dates'
import type { SortedFilters } from '../core/filters'
import type { SettledRow } from '../core/pipeline'

export interface SessionQuestion {
  projectId: string
  window: Window
  /** How far before and after the window a session's rows lie (docs/design/sessions.md). */
  lookbackMs: number
  /** Where session and event rows are read from and to: the window widened by the lookback. */
  readFrom: Date
  readTo: Date
  sorted: SortedFilters
  /** The settled check's rows (queries/sessions/settled-days.ts); absent, no day is settled. */
  settled?: readonly SettledRow[]
}

/** A planned session question as its statement is compiled: with its settled check's rows (none: no day settled). */
export const withSettled = <Q extends SessionQuestion>(query: Q, settled: readonly SettledRow[] | undefined): Q =>
  settled ? { ...query, settled } : query
