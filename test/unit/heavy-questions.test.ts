// Which questions are heavy (issue 40, item 9): decided from the planned query before anything runs, by the
// days of events it reads times its series. A heavy question runs on the heavy lane, beside the light ones.
import assert from 'node:assert/strict'
import { chart } from '../../queries/charts/chart'
import type { AnyResource } from '../../queries/core/pipeline'
import { funnel } from '../../queries/behaviour/funnel'
import { live } from '../../queries/insights/live'
import { metrics } from '../../queries/insights/metrics'
import { pages } from '../../queries/insights/pages'
import { laneOf, readDays } from '../../queries/run/heavy'
import { SHOP_SCOPE } from '../support/request-issues'

const planned = (resource: AnyResource, raw: Record<string, string>) => resource.plan(resource.parse(raw, SHOP_SCOPE))
const series = (count: number) => JSON.stringify(Array.from({ length: count }, () => ({ name: '*' })))

describe('heavy questions', () => {
  const cases: { name: string; resource: AnyResource; raw: Record<string, string>; days: number; lane: string }[] = [
    {
      name: "the dashboard's 30-day metrics",
      resource: metrics,
      raw: { startDate: '2024-03-01', endDate: '2024-03-30' },
      days: 30,
      lane: 'data',
    },
    { name: '60-day pages', resource: pages, raw: { startDate: '2024-01-01', endDate: '2024-02-29' }, days: 60, lane: 'data' },
    { name: '63-day pages', resource: pages, raw: { startDate: '2024-01-01', endDate: '2024-03-03' }, days: 63, lane: 'heavy' },
    { name: 'a year of metrics', resource: metrics, raw: { startDate: '2023-04-01', endDate: '2024-03-31' }, days: 366, lane: 'heavy' },
    {
      name: 'a 7-day chart of 3 series',
      resource: chart,
      raw: { series: series(3), startDate: '2024-03-01', endDate: '2024-03-07' },
      days: 21,
      lane: 'data',
    },
    {
      name: 'a 30-day chart of 3 series',
      resource: chart,
      raw: { series: series(3), startDate: '2024-03-01', endDate: '2024-03-30' },
      days: 90,
      lane: 'heavy',
    },
    {
      name: 'a 30-day chart of 1 series with the previous period',
      resource: chart,
      raw: { series: series(1), startDate: '2024-03-01', endDate: '2024-03-30', previous: 'true' },
      days: 60,
      lane: 'data',
    },
    {
      name: 'a 12-month funnel',
      resource: funnel,
      raw: { steps: JSON.stringify(['*', 'signup']), startDate: '2023-04-01', endDate: '2024-03-31' },
      days: 366,
      lane: 'heavy',
    },
  ]
  for (const { name, resource, raw, days, lane } of cases) {
    it(`${name}: ${days} days read, ${lane}`, () => {
      const query = planned(resource, raw)
      assert.equal(readDays(query), days)
      assert.equal(laneOf(resource, query), lane)
    })
  }

  it('leaves a resource with a lane of its own there, whatever it reads', () => {
    assert.equal(laneOf(live, planned(live, {})), 'bounded')
  })
})
