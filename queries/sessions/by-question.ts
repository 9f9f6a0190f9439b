// The wing's relations asked with a planned question rather than its source, for a route that compiles without
// holding one (metrics): each builds the question's source for its one relation. A route that asks for several
// holds the source instead (queries/sessions/source.ts), so that its params are computed once.
import type { Fragment, Params } from '../core/compiled'
import type { SessionField } from '../core/registry'
import type { SessionQuestion } from './question'
import { sessionsMatchingAttributes as matchingOf } from './session-sets'
import { sessionSource } from './source'
import { eventJoin as eventJoinOf, windowSessions as windowSessionsOf } from './window-sessions'

export { eventConditions, performedWith } from './session-sets'
export { settledCheck } from './settled-days'

/** The statement-wide params of the question's source (`SessionSource.params`). */
export const sessionParams = (question: SessionQuestion): Params => sessionSource(question).params

/** The window's sessions kept by the filters, with `s_` columns for `attributes` (window-sessions.ts). */
export const windowSessions = (question: SessionQuestion, attributes: readonly SessionField[]): Fragment =>
  windowSessionsOf(sessionSource(question), attributes)

/** The event-field filters over the window's sessions (window-sessions.ts, `eventJoin`). */
export const eventJoin = (question: SessionQuestion): { views: Fragment; join: Fragment } => eventJoinOf(sessionSource(question))

/** `session_id IN (...)` for sessions whose attributes pass the filters, or null (session-sets.ts). */
export const sessionsMatchingAttributes = (question: SessionQuestion): Fragment | null => matchingOf(sessionSource(question))
