// `GET /insights/:projectId/overview` (OpenPanel's): the metrics of `/metrics` as `{ summary, series,
// interval, startDate, endDate }`, by day unless `interval` says otherwise, over OpenPanel's default window.
import { formatInstant } from '../core/dates'
import { metrics } from '../insights/metrics'
import { adapt, openpanelDateProperties, withOpenPanelWindow } from './adapt'

/** OpenPanel's intervals of the overview (no minutes), `day` by default. */
export const OVERVIEW_INTERVALS = ['hour', 'day', 'week', 'month'] as const

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
})
