// What each question reads, decided in the plan (as Plausible's TableDecider decides it): a table that
// holds its rows already combined where that table answers exactly, else the rows it is combined from.
// Compile only follows the decision (`reads` on the planned query, or on each planned chart item).
import { boundsOnWholeHours, type Interval, type Window } from './dates'
import type { SortedFilters } from './filters'

/**
 * - `rollup`: counts per value and hour of the settled days (the sessions wing's rollups, queries/sessions/reads.ts);
 * - `settled`: the settled days' combined rows (the wing's combined sessions and page views);
 * - `hours`: the hourly projections of `events` (chart_by_hour, revenue_by_hour);
 * - `events`: the events themselves.
 * Days not settled are always regrouped from their partial rows, whatever a question reads for the others.
 */
export type Reads = 'rollup' | 'settled' | 'hours' | 'events'

/** What events counted per bucket (metrics' revenue, a chart series) are read from. */
export type EventReads = Extract<Reads, 'hours' | 'events'>

/** A session question after its filters are sorted. */
export interface SortedQuestion {
  window: Window
  sorted: SortedFilters
}

/** Whether no filter keeps a session or an event out. */
export const unfiltered = ({ sorted }: SortedQuestion): boolean => sorted.sessionRestriction === null && sorted.eventSelection === null

/**
 * Revenue is read by the hour (revenue_by_hour) without filters (the projection keeps none) when the window
 * and every bucket start on whole hours, so that no bucket bound lies inside an hour; else from the events.
 */
export function revenueReads(query: SortedQuestion & { interval: Interval; timezone: string }): EventReads {
  return unfiltered(query) && boundsOnWholeHours(query.window, query.interval, query.timezone) ? 'hours' : 'events'
}

/** A chart, as far as where its items may be read from. */
interface ChartQuestion {
  window: Window
  previousWindow?: Window
  interval: Interval
  timezone: string
  breakdowns: readonly unknown[]
}

/** A chart's event series item, as far as where it may be read from. */
interface ChartItem {
  segment: string
  filters: readonly unknown[]
  property?: { kind: string }
}

/** The counts chart_by_hour (migrations/001_source_tables.sql) holds per (project, name, hour). */
const HOURLY_COUNTS: ReadonlySet<string> = new Set(['event', 'user', 'session', 'user_average'])

/**
 * A chart's event item is read by the hour (chart_by_hour) when the chart has no breakdowns (the projection
 * keeps none), its windows and buckets are bounded on whole hours (then the hour places every event as its
 * time does), and the item has no filters (kept by none) and counts, or sums a numeric column (the sums the
 * projection holds); else from the events.
 */
export function chartItemReads(chart: ChartQuestion, item: ChartItem): EventReads {
  const windows = chart.previousWindow ? [chart.window, chart.previousWindow] : [chart.window]
  const chartByHour = chart.breakdowns.length === 0 && windows.every((window) => boundsOnWholeHours(window, chart.interval, chart.timezone))
  const itemByHour =
    item.filters.length === 0 && (HOURLY_COUNTS.has(item.segment) || (item.segment === 'property_sum' && item.property?.kind === 'column'))
  return chartByHour && itemByHour ? 'hours' : 'events'
}

/** Plan step of metrics, after the interval is picked and the filters sorted: where revenue is read (`revenueReads`). */
export const decideRevenueReads = <Q extends SortedQuestion & { interval: Interval; timezone: string }>(
  query: Q,
): Q & { reads: EventReads } => ({
  ...query,
  reads: revenueReads(query),
})
