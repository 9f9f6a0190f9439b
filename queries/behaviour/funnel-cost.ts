// The cost cap of a funnel folded step by step (issue 40). Kept apart from funnel.ts, which only names it
// as its last plan step. A folded funnel (funnel.ts, pickFunnelEngine: a `*` step or a repeated name) builds
// and folds each group's moments, and its time grows with the events of its window and with its steps: on
// the abuse bench's 2M events over a year a 12-month fold of ten `*` steps outlasted the 15 s limit every
// time (docs/measurements.md, "Heavy questions beside light ones"), so it is refused up front, as a chart
// with too many cells is.
import { DAY_MS, type Window } from '../core/dates'
import { invalid } from '../core/errors'

/** What the cap reads of a planned funnel (funnel.ts, PlannedFunnel), named here so that neither file imports the other's. */
interface FunnelCost {
  engine: string
  steps: readonly unknown[]
  window: Window
}

/** Steps times window days a folded funnel may cost: a year of five steps, or a month of all ten. */
export const FOLD_STEP_DAYS_CAP = 1_850

/** Plan step, after the engine is picked: a folded funnel past FOLD_STEP_DAYS_CAP is a 400 that states its cost. */
export function capFoldCost<Q extends FunnelCost>(query: Q): Q {
  if (query.engine !== 'fold') return query
  const days = Math.round((query.window.end.getTime() - query.window.start.getTime()) / DAY_MS)
  const cost = query.steps.length * days
  if (cost <= FOLD_STEP_DAYS_CAP) return query
  throw invalid([
    {
      path: ['steps'],
      message: `this funnel folds ${query.steps.length} steps over ${days} days (${cost} step-days), more than ${FOLD_STEP_DAYS_CAP}: narrow the window, use fewer steps, or give each step its own event name (distinct named steps are counted without folding)`,
    },
  ])
}
