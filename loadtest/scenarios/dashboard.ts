// `dashboard`: what one dashboard load sends: metrics with its series, top pages, four breakdowns, a chart
// and live visitors, each over a random window of the target (a day, a week or a month; most of them up to
// its last day, as viewers of "the last 7 days" ask) and a random time zone.
import { json, windowQuery, type RequestKind, type Scenario } from './scenario'

const WINDOW_DAYS = [1, 7, 30]
/** Windows that end on the target's last day; the others end on any of its days. */
const LATEST_SHARE = 0.7
const insight = (resource: string): RequestKind => ({
  route: resource,
  weight: 1,
  build: (target, random) => ({
    route: resource,
    path: `/insights/${encodeURIComponent(target.projectId)}/${resource}?${windowQuery(target, random, WINDOW_DAYS, LATEST_SHARE)}`,
  }),
})

const CHART_SERIES = [
  { name: 'screen_view', segment: 'user' },
  { name: '*', segment: 'session' },
]

export const dashboard: Scenario = {
  name: 'dashboard',
  version: 1,
  description:
    'One dashboard load: metrics (with series), pages, referrer_name, country, device and browser breakdowns, a two-series chart and live, in equal parts, over random windows of 1, 7 or 30 days (70% of them ending on the last day with events) and random time zones.',
  kinds: [
    insight('metrics'),
    insight('pages'),
    ...['referrer_name', 'country', 'device', 'browser'].map(insight),
    {
      route: 'chart',
      weight: 1,
      build: (target, random) => ({
        route: 'chart',
        path: `/export/charts?projectId=${encodeURIComponent(target.projectId)}&${windowQuery(target, random, WINDOW_DAYS, LATEST_SHARE)}&series=${json(CHART_SERIES)}`,
      }),
    },
    { route: 'live', weight: 1, build: (target) => ({ route: 'live', path: `/insights/${encodeURIComponent(target.projectId)}/live` }) },
  ],
}
