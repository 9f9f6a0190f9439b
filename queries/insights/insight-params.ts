// Parsing of the parameters the insights resources share (dates, timezone, filters, paging): every
// problem of a request is collected into one 400.
import { windowOrThrow } from '../core/request-window'
import { COMPARE_PROPERTY, type CompareMode, type KeptKeys } from '../core/compare'
import { INTERVALS, RANGES, bucketCount, type Interval, type Range, type Window } from '../core/dates'
import { QueryError, invalid, type Issue } from '../core/errors'
import { sortFilters, type Filter, type SortedFilters } from '../core/filters'
import { TREE_FILTERS_PROPERTY, parseFiltersOrTree, sortTree, type FilterTree } from '../core/filter-tree'
import type { Scope } from '../core/pipeline'
import { checkedParams, compileSchema, schemaIssues, type Validator } from '../core/validate'
import type { SessionQuestion } from '../sessions/question'

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
  /** Compared with the window before (queries/core/compare.ts). */
  compare?: CompareMode
  /** A compared question's keys: its rows are theirs only (queries/insights/insight-compare.ts). */
  kept?: KeptKeys
}

/** Set by `widenForSessions`: where session and event rows are read from and to. */
export interface ReadRange {
  readFrom: Date
  readTo: Date
}

/** An insights query after its plan: its read range and sorted filters decided. */
export interface PlannedInsight extends InsightQuery, ReadRange {
  sorted: SortedFilters
  /** The settled check's rows, which the sessions wing reads its sessions by (queries/sessions/question.ts). */
  settled?: SessionQuestion['settled']
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

/** A paged list that compares (`compare`, queries/core/compare.ts). */
export const comparedSchema = { ...pagedSchema, properties: { ...pagedSchema.properties, compare: COMPARE_PROPERTY } }

export const seriesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...dateProperties, interval: { type: 'string', enum: INTERVALS }, compare: COMPARE_PROPERTY },
}

/** The shared parameters a route takes: a page of a list, one that compares too, or a series (which compares). */
export type SharedParams = 'paged' | 'compared' | 'series'

const VALIDATORS: Record<SharedParams, Validator<unknown>> = {
  paged: compileSchema(pagedSchema),
  compared: compileSchema(comparedSchema),
  series: compileSchema(seriesSchema),
}

interface RawParams {
  startDate?: string
  endDate?: string
  range: Range
  timezone?: string
  filters?: string
  cursor?: number
  limit?: number
  interval?: Interval
  compare?: CompareMode
}

export function parseInsightParams(raw: Record<string, unknown>, scope: Scope, kind: SharedParams): InsightQuery {
  const { typed, issues } = checkedParams<RawParams>(VALIDATORS[kind], raw)
  const { filters, tree, issues: filterIssues } = parseFiltersOrTree(typeof typed.filters === 'string' ? typed.filters : undefined)
  issues.push(...filterIssues)
  return {
    ...windowOrThrow(typed, scope, issues),
    filters,
    ...(tree ? { tree } : {}),
    limit: typed.limit ?? 10,
    cursor: typed.cursor ?? 1,
    interval: typed.interval,
    lookbackMs: scope.sessionLookbackMs,
    ...(typed.compare ? { compare: typed.compare } : {}),
  }
}

/** A paged route's own params, on top of the shared ones: their names, their schema, and how they are read. */
export interface OwnParams<Own> {
  names: readonly string[]
  validator: Validator<unknown>
  /** The typed own params, read after the schema's check; a problem it finds goes into `issues`. */
  read(own: Record<string, unknown>, issues: Issue[]): Own
}

/**
 * Parses a paged request with params of its own beside the shared ones: every problem, of the shared params
 * and of its own, is in one 400 (the shared ones first).
 */
export function parseWithOwnParams<Own>(
  raw: Record<string, unknown>,
  scope: Scope,
  ownParams: OwnParams<Own>,
  shared: Exclude<SharedParams, 'series'> = 'paged',
): InsightQuery & Own {
  const sharedRaw = Object.fromEntries(Object.entries(raw).filter(([key]) => !ownParams.names.includes(key)))
  const own = Object.fromEntries(Object.entries(raw).filter(([key, value]) => ownParams.names.includes(key) && value !== undefined))
  const issues: Issue[] = schemaIssues(ownParams.validator, own)
  const read = ownParams.read(own, issues)
  let query: InsightQuery | undefined
  try {
    query = parseInsightParams(sharedRaw, scope, shared)
  } catch (error) {
    if (!(error instanceof QueryError) || error.code !== 'invalid_request') throw error
    issues.unshift(...error.issues)
  }
  if (issues.length || !query) throw invalid(issues)
  return { ...query, ...read }
}

/** Plan step: session rows are read from a lookback before the window to a lookback after it. */
export function widenForSessions<Q extends Pick<InsightQuery, 'window' | 'lookbackMs'>>(query: Q): Q & ReadRange {
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
    throw invalid([
      {
        path: ['interval'],
        message: `this series would have ${buckets} buckets, more than ${SERIES_BUCKET_CAP}: narrow the window or widen the interval`,
      },
    ])
  }
  return query
}
