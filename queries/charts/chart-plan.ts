// The plan steps of a chart: its interval, the window before it (with `previous`), the cap on cells and
// what each item reads.
import { bucketCount, type Window } from '../core/dates'
import { invalid } from '../core/errors'
import { chartItemReads } from '../core/reads'
import type { ChartQuery, ChartRequest, PlannedChart, SeriesItem } from './chart-params'
import { lettersOf } from './formula'

/** Bucket cap: lines (series items, or their groups) x buckets x periods above this is a 400. */
export const CHART_CELL_CAP = 20_000

/** Plan step: with `previous`, the window of the same length just before the requested one. */
export function resolvePreviousWindow<Q extends ChartRequest>(query: Q): Q & { previousWindow?: Window } {
  if (!query.previous) return query
  const length = query.window.end.getTime() - query.window.start.getTime()
  return { ...query, previousWindow: { start: new Date(query.window.start.getTime() - length), end: query.window.start } }
}

/**
 * Lines an item may answer: one without breakdowns; with them, `breakdownLimit` groups for an event item,
 * and for a formula the union of the groups of the items it names.
 */
function linesAtMost(item: SeriesItem, query: ChartQuery): number {
  if (!query.breakdowns.length) return 1
  return item.kind === 'formula' ? new Set(lettersOf(item.formula)).size * query.breakdownLimit : query.breakdownLimit
}

/** Plan step, after the interval and previous window: a chart with too many cells is a 400. */
export function capChartCells(query: ChartQuery): ChartQuery {
  const lines = query.items.reduce((total, item) => total + linesAtMost(item, query), 0)
  const perBucket = lines * (query.previousWindow ? 2 : 1)
  const cells = perBucket * bucketCount(query.window, query.interval, query.timezone)
  if (cells > CHART_CELL_CAP) {
    throw invalid([{ path: ['interval'], message: `this chart would have ${cells} cells (lines x buckets x periods, a line per item or group), more than ${CHART_CELL_CAP}: narrow the window, widen the interval or lower breakdownLimit` }])
  }
  return query
}

/** Plan step, last: what each event item is read from (core/reads.ts, `chartItemReads`). */
export function decideChartReads(query: ChartQuery): PlannedChart {
  return { ...query, items: query.items.map((item) => (item.kind === 'event' ? { ...item, reads: chartItemReads(query, item) } : item)) }
}
