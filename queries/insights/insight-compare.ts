// `compare` of the insights routes (queries/core/compare.ts): how each asks its compared question for the keys
// its answer kept, and where its rows gain `previous` and `change`. A breakdown and the entry pages restrict
// the compared window's sessions by a filter on the kept values (bound like any filter's); the pages and exit
// pages restrict their page rows by the kept pages (`keptPages`), bound as two arrays.
import { changesOf, listCompare, type CompareHook } from '../core/compare'
import type { Filter } from '../core/filters'
import type { Fragment } from '../core/compiled'
import type { FilterTree } from '../core/filter-tree'
import { DIMENSIONS, type Dimension, type DimensionSpec, type SessionAttribute } from '../core/registry'
import type { InsightQuery, PlannedSeries } from './insight-params'

type Figures = Record<string, unknown>

/** A page as both answers give it. */
export interface PageKey {
  origin: string
  path: string
}

/** The most rows a compared question reads when its restriction may keep more keys than the answer's (a page, 1000). */
const WIDEST_PAGE = 1000

/** `name: null` in an answer is the empty value in the engine. */
const engineValue = (value: unknown) => (value === null ? '' : String(value))

/** A filter keeping the sessions whose attribute is one of `values`. */
const isOneOf = (attribute: SessionAttribute, values: readonly string[]): Filter => ({
  target: { kind: 'session', attribute },
  operator: 'is',
  values: [...new Set(values)],
  numbers: [],
})

/** The request with session filters added: to the flat filters, or as leaves ANDed with its tree. */
function withSessionFilters<Q extends InsightQuery>(query: Q, filters: Filter[]): Q {
  if (!query.tree) return { ...query, filters: [...query.filters, ...filters] }
  const tree: FilterTree = { kind: 'and', children: [query.tree, ...filters.map((filter): FilterTree => ({ kind: 'session', filter }))] }
  return { ...query, tree }
}

/**
 * A session-attribute list's hook: rows keyed by (prefix, name) are asked for again by filters on both
 * columns, which keep every pair of the kept values, so the page widens to the widest.
 */
function attributeCompare<Parsed extends InsightQuery, Planned extends InsightQuery>(options: {
  column: SessionAttribute
  prefix?: SessionAttribute
  key(row: Figures): [string, string]
  fields: readonly string[]
}): CompareHook<Parsed, Planned> {
  const { column, prefix } = options
  return listCompare<Parsed, Planned>({
    fields: () => options.fields,
    keyOf: (row) => JSON.stringify(options.key(row)),
    restrict(parsed, rows) {
      const keys = rows.map(options.key)
      const filters = [
        isOneOf(
          column,
          keys.map(([, name]) => name),
        ),
      ]
      if (!prefix) return withSessionFilters(parsed, filters)
      filters.push(
        isOneOf(
          prefix,
          keys.map(([kept]) => kept),
        ),
      )
      return { ...withSessionFilters(parsed, filters), limit: WIDEST_PAGE }
    },
  })
}

/** The numeric fields of a breakdown's and an entry page's rows. */
const SESSION_FIELDS = ['sessions', 'pageviews', 'bounce_rate', 'avg_session_duration'] as const

/** A breakdown's hook: its rows by prefix (if it has one) and name. */
export function breakdownCompare<Parsed extends InsightQuery, Planned extends InsightQuery>(name: Dimension): CompareHook<Parsed, Planned> {
  const { column, prefix }: DimensionSpec = DIMENSIONS[name]
  return attributeCompare({
    column,
    prefix,
    key: (row) => [prefix ? engineValue(row.prefix) : '', engineValue(row.name)],
    fields: SESSION_FIELDS,
  })
}

/** The entry pages' hook: sessions by entry origin and path. */
export function entryCompare<Parsed extends InsightQuery, Planned extends InsightQuery>(): CompareHook<Parsed, Planned> {
  return attributeCompare({
    column: 'entry_path',
    prefix: 'entry_origin',
    key: (row) => [String(row.origin), String(row.path)],
    fields: SESSION_FIELDS.filter((field) => field !== 'pageviews'),
  })
}

/** A page list's hook (pages, exit pages): rows by origin and path, restricted to the kept pages. */
export function pageCompare<Parsed extends InsightQuery & { keptPages?: PageKey[] }, Planned extends InsightQuery>(
  fields: (query: Planned) => readonly string[],
): CompareHook<Parsed, Planned> {
  return listCompare<Parsed, Planned>({
    fields,
    keyOf: (row) => JSON.stringify([row.origin, row.path]),
    // The kept pages are the whole selection: `search` chose them by their title now, not by their title then.
    restrict: (parsed, rows) => {
      const { search: _search, ...request } = parsed as Parsed & { search?: string }
      return { ...request, keptPages: rows.map((row) => ({ origin: String(row.origin), path: String(row.path) })) } as Parsed
    },
  })
}

/**
 * SQL: whether a page row's (origin, path) is one of the kept pages, bound as two arrays of one length; `and`
 * comes before it. Nothing without kept pages.
 */
export function keptPagesCondition(kept: readonly PageKey[] | undefined, columns: { origin: string; path: string }, and: string): Fragment {
  if (!kept) return { sql: '', params: {} }
  return {
    sql: `${and}has(arrayZip({keptOrigins:Array(String)}, {keptPaths:Array(String)}), (toString(${columns.origin}), ${columns.path}))`,
    params: { keptOrigins: kept.map((page) => page.origin), keptPaths: kept.map((page) => page.path) },
  }
}

/** The figures of `/metrics` and of each bucket of its series. */
const METRICS_FIELDS = [
  'bounce_rate',
  'unique_visitors',
  'total_sessions',
  'avg_session_duration',
  'total_screen_views',
  'views_per_session',
  'total_revenue',
] as const

interface MetricsBody {
  metrics: Figures
  series: Figures[]
}

/**
 * `/metrics`: the compared window's totals beside the totals, and its i-th bucket (bucketed from its own start,
 * by the same interval) beside the i-th bucket, null past its last.
 */
export function metricsCompare<Parsed extends InsightQuery>(): CompareHook<Parsed, PlannedSeries> {
  return {
    asked: (query) => query,
    question: ({ parsed, planned, window }) => {
      const { compare: _compare, ...request } = parsed
      return { ...request, window, interval: planned.interval } as Parsed
    },
    merge(body, previous) {
      const now = body as MetricsBody
      const before = previous as MetricsBody
      const series = now.series.map((bucket, index) => {
        const was = before.series[index] ?? null
        return { ...bucket, previous: was, change: changesOf(bucket, was, METRICS_FIELDS) }
      })
      return { metrics: now.metrics, previous: before.metrics, change: changesOf(now.metrics, before.metrics, METRICS_FIELDS), series }
    },
  }
}
