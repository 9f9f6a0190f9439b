// Parsing of the parameters the insights resources share (dates, timezone, filters, paging): every
// problem of a request is collected into one 400.
import { INTERVALS, RANGES, bucketCount, requestWindow, type Interval, type Range, type Window } from '../core/dates'
import { invalid, type Issue } from '../core/errors'
import { sortFilters, type Filter, type SortedFilters } from '../core/filters'
import { TREE_FILTERS_PROPERTY, parseFiltersOrTree, sortTree, type FilterTree } from '../core/filter-tree'
import type { Scope, SettledRow } from '../core/pipeline'
import { compileSchema, schemaIssues } from '../core/validate'

export interface InsightQuery {
  projectId: string
  timezone: string
  window: Window
  /** The flat filters; empty when `filters` is a tree. */
  filters: Filter[]
  /** The filter tree, when `filters` is one: it selects sessions, and every view of a kept session counts. */
  tree?: FilterTree
  limit: number
  cursor: number
  interval?: Interval
  lookbackMs: number
}

/** Set by `widenForSessions`: where session and event rows are read from and to. */
export interface ReadRange {
  readFrom: Date
  readTo: Date
}

/** An insights query after its plan: its read range and sorted filters decided. */
export interface PlannedInsight extends InsightQuery, ReadRange {
  sorted: SortedFilters
  /**
   * The settled check's rows, the input `compile` takes beside the planned query (`withSettled`); absent,
   * no day is settled.
   */
  settled?: readonly SettledRow[]
}

/** A series query after its plan: its interval picked too. */
export interface PlannedSeries extends PlannedInsight {
  interval: Interval
}

const dateProperties = {
  startDate: { type: 'string' },
  endDate: { type: 'string' },
  range: { type: 'string', enum: RANGES, default: '7d' },
  timezone: { type: 'string' },
  filters: TREE_FILTERS_PROPERTY,
}

export const pagedSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...dateProperties,
    cursor: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
  },
}

export const seriesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...dateProperties, interval: { type: 'string', enum: INTERVALS } },
}

const validatePaged = compileSchema(pagedSchema)
const validateSeries = compileSchema(seriesSchema)

interface RawParams {
  startDate?: string
  endDate?: string
  range: Range
  timezone?: string
  filters?: string
  cursor?: number
  limit?: number
  interval?: Interval
}

export function parseInsightParams(raw: Record<string, unknown>, scope: Scope, kind: 'paged' | 'series'): InsightQuery {
  const params = { ...raw }
  const issues: Issue[] = schemaIssues(kind === 'paged' ? validatePaged : validateSeries, params)
  const typed = params as unknown as RawParams
  const { filters, tree, issues: filterIssues } = parseFiltersOrTree(typeof typed.filters === 'string' ? typed.filters : undefined)
  issues.push(...filterIssues)
  const { timezone, window } = requestWindow(typed, { projectZone: scope.project.timezone, now: scope.now, issues })
  if (issues.length || !window) throw invalid(issues)
  return {
    projectId: scope.project.id,
    timezone,
    window,
    filters,
    ...(tree ? { tree } : {}),
    limit: typed.limit ?? 10,
    cursor: typed.cursor ?? 1,
    interval: typed.interval,
    lookbackMs: scope.sessionLookbackMs,
  }
}

/** Plan step: session rows are read from a lookback before the window to a lookback after it. */
export function widenForSessions<Q extends InsightQuery>(query: Q): Q & ReadRange {
  return {
    ...query,
    readFrom: new Date(query.window.start.getTime() - query.lookbackMs),
    readTo: new Date(query.window.end.getTime() + query.lookbackMs),
  }
}

/**
 * Buckets a metrics series may have. The default intervals give at most a few hundred, a day of minutes
 * 1,440 and a week of hours 168; 5,000 also allows three days of minutes, a year of hours or 13 years of
 * days, while a response stays under about 1.5 MB.
 */
export const SERIES_BUCKET_CAP = 5_000

/**
 * Plan step: which filters restrict sessions, which select events and which pick the counted views is
 * decided here, once, each filter compiled once (Plausible's table decider). A tree only restricts sessions.
 */
export function decideFilters<Q extends InsightQuery>(query: Q): Q & { sorted: SortedFilters } {
  return { ...query, sorted: query.tree ? sortTree(query.tree) : sortFilters(query.filters) }
}

/** Plan step, after the interval is picked: a series with too many buckets is a 400, counted without listing them. */
export function capSeriesBuckets<Q extends InsightQuery & { interval: Interval }>(query: Q): Q {
  const buckets = bucketCount(query.window, query.interval, query.timezone)
  if (buckets > SERIES_BUCKET_CAP) {
    throw invalid([{ path: ['interval'], message: `this series would have ${buckets} buckets, more than ${SERIES_BUCKET_CAP}: narrow the window or widen the interval` }])
  }
  return query
}

/** A planned session question as its statement is compiled: with its settled check's rows (none: no day settled). */
export const withSettled = <Q extends PlannedInsight>(query: Q, settled: readonly SettledRow[] | undefined): Q => (settled ? { ...query, settled } : query)
