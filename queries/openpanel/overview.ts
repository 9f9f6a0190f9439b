// `GET /insights/:projectId/overview` (OpenPanel's): the metrics of `/metrics` as `{ summary, series,
// interval, startDate, endDate }`, by day unless `interval` says otherwise, over OpenPanel's default window;
// compared (`compare`), `summary` and each series point carry their `previous` and `change`.
import { formatInstant } from '../core/dates'
import { metrics } from '../insights/metrics'
import { adapt, openpanelDateProperties, withOpenPanelWindow } from './adapt'

/** OpenPanel's intervals of the overview (no minutes), `day` by default. */
export const OVERVIEW_INTERVALS = ['hour', 'day', 'week', 'month'] as const

type MetricsHook = NonNullable<typeof metrics.compare>

interface OverviewBody {
  summary: object
  series: object[]
}

/** `/metrics`' merge over the overview's bodies: the totals' `previous` and `change` go into `summary`. */
function overviewCompare(hook: MetricsHook): MetricsHook {
  const asMetrics = (body: OverviewBody) => ({ metrics: body.summary, series: body.series })
  return {
    ...hook,
    merge(body, previous, query) {
      const now = body as OverviewBody
      const merged = hook.merge(asMetrics(now), asMetrics(previous as OverviewBody), query) as OverviewBody & {
        previous: object
        change: object
      }
      return { ...now, summary: { ...now.summary, previous: merged.previous, change: merged.change }, series: merged.series }
    },
  }
}

export const overview = adapt(metrics, {
  name: 'openpanel.overview',
  own: { ...openpanelDateProperties, interval: { type: 'string', enum: OVERVIEW_INTERVALS, default: 'day' } },
  toBase: (own, rest, scope) => withOpenPanelWindow({ ...rest, ...own }, scope),
  reshape({ body }, query) {
    const { metrics: summary, series } = body as { metrics: object; series: object[] }
    return {
      body: {
        summary,
        series,
        interval: query.interval,
        startDate: formatInstant(query.window.start, query.timezone),
        endDate: formatInstant(query.window.end, query.timezone),
      },
    }
  },
  compare: overviewCompare(metrics.compare as MetricsHook),
})
