// The seam between a session route and the sessions wing: a route asks for its question's source once, and
// compiles against the relations the wing gives for it (window-sessions.ts, rollup-rows.ts, page-views.ts,
// sessions-page.ts, session-sets.ts). The source holds the statement's params, computed here once; the route
// never sees how its sessions are assembled (settled days, their compactions, the regrouped range).
import type { CompiledQuery, Params } from '../core/compiled'
import { toClickHouseTime, type SettledRow } from '../core/pipeline'
import { windowParams } from '../core/window-params'
import { withSettled, type SessionQuestion } from './question'
import { dayParams, settledCheck, settledParams } from './settled-days'

/** A question's sessions as a statement reads them: the question, and the params its statement binds. */
export interface SessionSource {
  readonly question: SessionQuestion
  /**
   * Project, the window with the lookback read range, the window's UTC days, the settled ones among them with
   * their compactions and the regrouped days' range (from the settled check's rows; without them none
   * settled, every day regrouped), and every filter's values.
   */
  readonly params: Params
}

/** The source of a question compiled with its settled check's rows (`question.settled`). */
export function sessionSource(question: SessionQuestion): SessionSource {
  const days = dayParams(question)
  const params: Params = {
    ...windowParams(question.projectId, question.window),
    readFrom: toClickHouseTime(question.readFrom),
    readTo: toClickHouseTime(question.readTo),
    firstDay: days.firstDay,
    lastDay: days.lastDay,
    ...settledParams(days, question.settled ?? []),
    ...question.sorted.params,
  }
  return Object.freeze({ question, params })
}

/** What a session route's resource takes from the wing: its settled check, and its compile given the check's rows. */
export interface SessionStatement<Q> {
  settledCheck(query: Q): CompiledQuery
  compile(query: Q, settled?: readonly SettledRow[]): CompiledQuery
}

/**
 * A session route's `settledCheck` and `compile`: the wing's check, and `compile` given the question with
 * the check's rows, which it hands the wing (`sessionSource`) to read its sessions by.
 */
export function sessionStatement<Q extends SessionQuestion>(compile: (query: Q) => CompiledQuery): SessionStatement<Q> {
  return { settledCheck, compile: (query, settled) => compile(withSettled(query, settled)) }
}
