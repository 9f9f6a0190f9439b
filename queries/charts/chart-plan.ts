// The plan steps of a chart: its interval, the window before it (with `previous`), the cap on cells, each
// item's filters compiled once and what each item reads.
import { bucketCount, type Window } from '../core/dates'
import { invalid } from '../core/errors'
import { chartItemReads } from '../core/reads'
import { andClauses, type Fragment } from '../core/compiled'
import { compileAll } from '../core/filters'
import type { ChartQuery, ChartRequest, EventItem, PlannedChart, SeriesItem, SortedChart } from './chart-params'
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
    throw invalid([
      {
        path: ['interval'],
        message: `this chart would have ${cells} cells (lines x buckets x periods, a line per item or group), more than ${CHART_CELL_CAP}: narrow the window, widen the interval or lower breakdownLimit`,
      },
    ])
  }
  return query
}

/** The prefix of an item's own params in the chart's one statement (`s0_event`), so items never collide. */
export const itemNames = (index: number): string => `s${index}_`

/** `AND ...`: the item's event name (unless "*") and filters, on each event row, each compiled once. */
function itemConditions(item: EventItem, names: string): Fragment {
  const parts: Fragment[] = []
  if (item.name !== '*') parts.push({ sql: `name = {${names}event:String}`, params: { [`${names}event`]: item.name } })
  const filters = compileAll(item.filters, { subject: 'events', names })
  if (filters) parts.push(filters)
  return andClauses(parts, '    ')
}

/** Plan step: each event item's name and filters compiled once, with the names its statement binds them by. */
export function decideChartFilters(query: ChartQuery): SortedChart {
  return {
    ...query,
    items: query.items.map((item, index) =>
      item.kind === 'event' ? { ...item, conditions: itemConditions(item, itemNames(index)) } : item,
    ),
  }
}

/** Plan step, last: what each event item is read from (core/reads.ts, `chartItemReads`). */
export function decideChartReads(query: SortedChart): PlannedChart {
  return { ...query, items: query.items.map((item) => (item.kind === 'event' ? { ...item, reads: chartItemReads(query, item) } : item)) }
}
