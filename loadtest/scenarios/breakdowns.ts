// `breakdowns`: every breakdown the gateway has, in equal parts, half of them with a filter (a session
// attribute or an event field), over random windows of a week or a month.
import { DIMENSIONS } from '../../queries/core/registry'
import { json, windowQuery, type Scenario } from './scenario'

const WINDOW_DAYS = [7, 30]
/** Filters a dashboard user clicks: a country, a device, a page path (an event field: a costlier plan). */
const FILTERS = [
  [{ name: 'country', operator: 'is', value: ['US'] }],
  [{ name: 'device', operator: 'is', value: ['mobile'] }],
  [{ name: 'path', operator: 'contains', value: ['blog'] }],
]

export const breakdowns: Scenario = {
  name: 'breakdowns',
  version: 1,
  description: `Every breakdown (${Object.keys(DIMENSIONS).length}) in equal parts, each without and with a filter (country, device or page path), over random windows of 7 or 30 days.`,
  kinds: Object.keys(DIMENSIONS).flatMap((dimension) =>
    [false, true].map((filtered) => {
      const route = filtered ? `${dimension}, filtered` : dimension
      return {
        route,
        weight: 1,
        build: (target, random) => ({
          route,
          path: `/insights/${encodeURIComponent(target.projectId)}/${dimension}?${windowQuery(target, random, WINDOW_DAYS)}${filtered ? `&filters=${json(random.pick(FILTERS))}` : ''}`,
        }),
      }
    }),
  ),
}
