// The bench questions over one 30-day window: the gateway request, and the OpenPanel-shaped statements
// that answer the same question (FINAL as OpenPanel runs breakdowns, and without FINAL; distinct counts
// with OpenPanel's `uniq`, and with `uniqExact` as Quarry's exact answers need).
import { DIMENSIONS } from '../queries/core/registry'
import { breakdownSql, chartSeriesSql, metricsSql, pagesSql } from './openpanel'
import { END, PROJECT, TIMEZONE } from './setup'

export const WINDOW = { startDate: '2025-12-02', endDate: '2025-12-31' }
/** The same window as instants, for the baseline's bound params (Berlin midnight = 23:00 UTC in winter). */
const WINDOW_UTC = { start: '2025-12-01 23:00:00.000', end: '2025-12-31 23:00:00.000' }
const PREVIOUS_UTC = { start: '2025-11-01 23:00:00.000', end: '2025-12-01 23:00:00.000' }
const PATH_FILTER = [{ name: 'path', operator: 'contains', value: ['a'] }]

export interface Question {
  name: string
  /** Gateway path and query string (without the project for insights). */
  url: string
  /** Baseline statements, run one after the other; `final` marks the OpenPanel-as-run variant. */
  baseline: { label: string; statements: { sql: string; params: Record<string, string> }[] }[]
}

const params = (window = WINDOW_UTC) => ({ projectId: PROJECT, tz: TIMEZONE, pathLike: '%a%', ...window })
const insights = (resource: string, filters?: object[]) =>
  `/insights/${PROJECT}/${resource}?startDate=${WINDOW.startDate}&endDate=${WINDOW.endDate}${filters ? `&filters=${encodeURIComponent(JSON.stringify(filters))}` : ''}`

const CHART_SERIES = [
  { name: 'screen_view', segment: 'user' },
  { name: 'purchase', segment: 'property_sum', property: 'revenue' },
  { name: '*', segment: 'session', filters: [{ name: 'country', operator: 'is', value: ['DE'] }] },
] as const
const chartUrl = (previous: boolean) =>
  `/export/charts?projectId=${PROJECT}&startDate=${WINDOW.startDate}&endDate=${WINDOW.endDate}&interval=day${previous ? '&previous=true' : ''}&series=${encodeURIComponent(JSON.stringify(CHART_SERIES))}`
const chartStatements = (previous: boolean, exact = false) =>
  (previous ? [WINDOW_UTC, PREVIOUS_UTC] : [WINDOW_UTC]).flatMap((window) =>
    CHART_SERIES.map((series) => ({ sql: chartSeriesSql(series.segment, exact), params: params(window) })),
  )

const BREAKDOWNS = ['referrer', 'country', 'browser_version'] as const satisfies readonly (keyof typeof DIMENSIONS)[]

function breakdown(name: keyof typeof DIMENSIONS, pathFilter: boolean): Question {
  const column = DIMENSIONS[name].column
  return {
    name: `${name}${pathFilter ? ', path filter' : ''}`,
    url: insights(name, pathFilter ? PATH_FILTER : undefined),
    baseline: [
      { label: 'FINAL', statements: [{ sql: breakdownSql(column, { final: true, pathFilter }), params: params() }] },
      { label: 'no FINAL', statements: [{ sql: breakdownSql(column, { final: false, pathFilter }), params: params() }] },
    ],
  }
}

/** Metrics as OpenPanel runs it (`uniq`), or the same statement with `uniqExact`. */
const metricsBaseline = (pathFilter: boolean, exact: boolean) => ({
  label: exact ? 'no FINAL, uniqExact' : 'no FINAL',
  statements: [{ sql: metricsSql(pathFilter, exact), params: params() }],
})
const pagesBaseline = (pathFilter: boolean, exact: boolean) => ({
  label: exact ? 'events, uniqExact' : 'events',
  statements: [{ sql: pagesSql(pathFilter, exact), params: params() }],
})

export const QUESTIONS: Question[] = [
  { name: 'metrics', url: insights('metrics'), baseline: [metricsBaseline(false, false), metricsBaseline(false, true)] },
  {
    name: 'metrics, path filter',
    url: insights('metrics', PATH_FILTER),
    baseline: [metricsBaseline(true, false), metricsBaseline(true, true)],
  },
  { name: 'pages', url: insights('pages'), baseline: [pagesBaseline(false, false), pagesBaseline(false, true)] },
  { name: 'pages, path filter', url: insights('pages', PATH_FILTER), baseline: [pagesBaseline(true, false), pagesBaseline(true, true)] },
  ...BREAKDOWNS.map((name) => breakdown(name, false)),
  breakdown('referrer', true),
  {
    name: 'chart, 3 series by day',
    url: chartUrl(false),
    baseline: [
      { label: '3 statements', statements: chartStatements(false) },
      { label: '3 statements, uniqExact', statements: chartStatements(false, true) },
    ],
  },
  {
    name: 'chart + previous',
    url: chartUrl(true),
    baseline: [
      { label: '6 statements', statements: chartStatements(true) },
      { label: '6 statements, uniqExact', statements: chartStatements(true, true) },
    ],
  },
]

/** The dashboard burst: metrics, pages and 8 breakdowns sent at once. */
export const DASHBOARD = [
  insights('metrics'),
  insights('pages'),
  ...(['referrer', 'referrer_name', 'utm_source', 'country', 'city', 'device', 'browser', 'os'] as const).map((name) => insights(name)),
]

/** The clock the gateway's requests are compiled against (the window is absolute, so only `now` checks use it). */
export const NOW = END
