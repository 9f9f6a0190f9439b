// `compare` of the insights routes (queries/core/compare.ts): how each asks its compared question for the keys
// its answer kept, and where its rows gain `previous` and `change`. A list's compared question keeps the rows
// of the kept keys after its grouping (`kept`, core/compare.ts's `keptKeysCondition`), so it reads what the same
// question reads without them (a breakdown's session rollup too), and a prefixed key matches as a pair.
import { changesOf, listCompare, type CompareHook } from '../core/compare'
import { DIMENSIONS, type Dimension, type DimensionSpec } from '../core/registry'
import type { InsightQuery, PlannedSeries } from './insight-params'

type Figures = Record<string, unknown>

/** `name: null` in an answer is the empty value in the engine. */
const engineValue = (value: unknown) => (value === null ? '' : String(value))

/** The columns a breakdown's (and an entry page's) row is keyed by, which a compared question's kept keys match. */
export const KEY_COLUMNS = ['prefix_value', 'name_value'] as const

/** A keyed list's hook: `key` gives a row's (prefix, value) in both answers; the compared question asks for those only. */
function keyedCompare<Parsed extends InsightQuery, Planned extends InsightQuery>(options: {
  of: string
  key(row: Figures): [string, string]
  fields: readonly string[]
}): CompareHook<Parsed, Planned> {
  return listCompare<Parsed, Planned>({
    fields: () => options.fields,
    keyOf: (row) => JSON.stringify(options.key(row)),
    // The kept keys are the whole selection: a page list's `search` chose its pages by their title now, not then.
    restrict: (parsed, rows) => ({ ...parsed, search: undefined, kept: { of: options.of, keys: rows.map(options.key) } }),
  })
}

/** The numeric fields of a breakdown's rows. */
const SESSION_FIELDS = ['sessions', 'pageviews', 'bounce_rate', 'avg_session_duration'] as const

/** A breakdown's hook: its rows by prefix ('' without one) and name. */
export function breakdownCompare<Parsed extends InsightQuery, Planned extends InsightQuery>(name: Dimension): CompareHook<Parsed, Planned> {
  const { prefix }: DimensionSpec = DIMENSIONS[name]
  return keyedCompare({ of: name, key: (row) => [prefix ? engineValue(row.prefix) : '', engineValue(row.name)], fields: SESSION_FIELDS })
}

/** A page list's hook (pages, entry and exit pages): rows by origin and path. */
export function pageCompare<Parsed extends InsightQuery, Planned extends InsightQuery>(
  of: string,
  fields: readonly string[],
): CompareHook<Parsed, Planned> {
  return keyedCompare({ of, key: (row) => [String(row.origin), String(row.path)], fields })
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
