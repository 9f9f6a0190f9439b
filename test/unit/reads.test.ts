// What each question reads, decided by its plan (core/reads.ts), as Plausible tests its TableDecider: a
// table of requests (route, window on whole hours or not, filters none / session / event / tree, interval)
// and the `reads` their plan decides.
import assert from 'node:assert/strict'
import { chart } from '../../queries/charts/chart'
import type { PlannedChart } from '../../queries/charts/chart-params'
import { dimensions } from '../../queries/insights/dimensions'
import { entryExit } from '../../queries/insights/entry-exit'
import { metrics } from '../../queries/insights/metrics'
import { pages } from '../../queries/insights/pages'
import type { AnyResource, Scope } from '../../queries/core/pipeline'
import type { Reads } from '../../queries/core/reads'

const scope: Scope = {
  project: { id: 'shop', name: 'Shop', timezone: 'Europe/Berlin' },
  now: new Date('2024-03-31T12:00:00Z'),
  sessionLookbackMs: 24 * 3_600_000,
}

const referrer = dimensions.find((resource) => resource.name === 'referrer') as AnyResource

/** Whole days in Berlin: bounds on whole hours (UTC). */
const DAYS = { startDate: '2024-03-25', endDate: '2024-03-31' }
/** Bounds on quarter hours but not on whole hours (Nepal is 5:45 ahead of UTC). */
const QUARTER_HOURS = { ...DAYS, timezone: 'Asia/Kathmandu' }
/** Bounds on no quarter hour. */
const MINUTES = { startDate: '2024-03-30T10:10:00Z', endDate: '2024-03-30T12:00:00Z' }

const filters = (...list: object[]) => ({ filters: JSON.stringify(list) })
const COUNTRY = filters({ name: 'country', operator: 'is', value: ['DE'] })
const PATH = filters({ name: 'path', operator: 'startsWith', value: ['/docs'] })
const NAME = filters({ name: 'name', operator: 'is', value: ['purchase'] })
const PROPERTY = filters({ name: 'properties.plan', operator: 'is', value: ['pro'] })
const TREE = { filters: JSON.stringify({ or: [{ name: 'country', operator: 'is', value: ['DE'] }, { performed: { name: 'purchase' } }] }) }

/** [what the case is, the resource, its query string, the `reads` its plan decides] */
const INSIGHTS: [string, AnyResource, Record<string, string>, Reads][] = [
  ['breakdown, whole hours, no filter', referrer, DAYS, 'rollup'],
  ['breakdown, quarter hours, no filter', referrer, QUARTER_HOURS, 'settled'],
  ['breakdown, minutes, no filter', referrer, MINUTES, 'settled'],
  ['breakdown, whole hours, session filter', referrer, { ...DAYS, ...COUNTRY }, 'settled'],
  ['breakdown, whole hours, page filter', referrer, { ...DAYS, ...PATH }, 'settled'],
  ['breakdown, whole hours, name filter', referrer, { ...DAYS, ...NAME }, 'settled'],
  ['breakdown, whole hours, tree', referrer, { ...DAYS, ...TREE }, 'settled'],
  ['entry pages, whole hours, no filter', entryExit as AnyResource, { ...DAYS, mode: 'entry' }, 'rollup'],
  ['exit pages, whole hours, no filter', entryExit as AnyResource, { ...DAYS, mode: 'exit' }, 'rollup'],
  ['exit pages, quarter hours, no filter', entryExit as AnyResource, { ...QUARTER_HOURS, mode: 'exit' }, 'settled'],
  ['exit pages, whole hours, property filter', entryExit as AnyResource, { ...DAYS, mode: 'exit', ...PROPERTY }, 'settled'],
  ['pages, whole hours, no filter', pages as AnyResource, DAYS, 'rollup'],
  ['pages, whole hours, page filter', pages as AnyResource, { ...DAYS, ...PATH }, 'rollup'],
  ['pages, whole hours, session filter', pages as AnyResource, { ...DAYS, ...COUNTRY }, 'settled'],
  ['pages, whole hours, name filter', pages as AnyResource, { ...DAYS, ...NAME }, 'settled'],
  ['pages, whole hours, tree', pages as AnyResource, { ...DAYS, ...TREE }, 'settled'],
  ['pages, quarter hours, no filter', pages as AnyResource, QUARTER_HOURS, 'settled'],
  ['pages, whole hours, property filter', pages as AnyResource, { ...DAYS, ...PROPERTY }, 'events'],
  ['pages, minutes, no filter', pages as AnyResource, MINUTES, 'events'],
  ['metrics, whole hours by day, no filter', metrics as AnyResource, { ...DAYS, interval: 'day' }, 'hours'],
  ['metrics, whole hours by hour, no filter', metrics as AnyResource, { ...DAYS, interval: 'hour' }, 'hours'],
  ['metrics, quarter hours by day, no filter', metrics as AnyResource, { ...QUARTER_HOURS, interval: 'day' }, 'events'],
  [
    'metrics, whole hours by minute, no filter',
    metrics as AnyResource,
    { startDate: '2024-03-30T10:00:00Z', endDate: '2024-03-30T12:00:00Z', interval: 'minute' },
    'events',
  ],
  ['metrics, whole hours by day, session filter', metrics as AnyResource, { ...DAYS, interval: 'day', ...COUNTRY }, 'events'],
  ['metrics, whole hours by day, event filter', metrics as AnyResource, { ...DAYS, interval: 'day', ...NAME }, 'events'],
  ['metrics, whole hours by day, tree', metrics as AnyResource, { ...DAYS, interval: 'day', ...TREE }, 'events'],
]

const series = (...items: object[]) => JSON.stringify(items)
const FILTERED = { name: 'screen_view', filters: [{ name: 'path', operator: 'is', value: ['/'] }] }

/** [what the case is, the chart's query string, the `reads` of each of its items (none for a formula)] */
const CHARTS: [string, Record<string, string>, (Reads | undefined)[]][] = [
  [
    'whole hours by day: counts and a column sum by the hour, the rest from events',
    {
      ...DAYS,
      interval: 'day',
      series: series(
        { name: '*' },
        { name: 'a', segment: 'user' },
        { name: 'a', segment: 'session' },
        { name: 'a', segment: 'user_average' },
        { name: 'a', segment: 'property_sum', property: 'revenue' },
      ),
    },
    ['hours', 'hours', 'hours', 'hours', 'hours'],
  ],
  [
    'whole hours by day: groups, first events, property aggregates and filtered items from events',
    {
      ...DAYS,
      interval: 'day',
      series: series(
        { name: 'a', segment: 'group' },
        { name: 'a', segment: 'one_event_per_user' },
        { name: 'a', segment: 'property_sum', property: 'properties.n' },
        { name: 'a', segment: 'property_average', property: 'revenue' },
        FILTERED,
      ),
    },
    ['events', 'events', 'events', 'events', 'events'],
  ],
  [
    'a formula reads nothing of its own',
    { ...DAYS, interval: 'day', series: series({ name: 'a' }, { type: 'formula', formula: 'A*2' }) },
    ['hours', undefined],
  ],
  ['whole hours with the previous window', { ...DAYS, interval: 'hour', previous: 'true', series: series({ name: 'a' }) }, ['hours']],
  ['breakdowns', { ...DAYS, interval: 'day', series: series({ name: 'a' }), breakdowns: '[{"name":"country"}]' }, ['events']],
  ['quarter hours', { ...QUARTER_HOURS, interval: 'day', series: series({ name: 'a' }) }, ['events']],
  [
    'whole hours by minute',
    { startDate: '2024-03-30T10:00:00Z', endDate: '2024-03-30T12:00:00Z', interval: 'minute', series: series({ name: 'a' }) },
    ['events'],
  ],
]

const planned = (resource: AnyResource, raw: Record<string, string>) => resource.plan(resource.parse({ ...raw }, scope))

describe('what each question reads, decided in its plan', () => {
  for (const [name, resource, raw, reads] of INSIGHTS) {
    it(`${name}: ${reads}`, () => {
      assert.equal((planned(resource, raw) as { reads: Reads }).reads, reads)
    })
  }

  for (const [name, raw, reads] of CHARTS) {
    it(`chart, ${name}: ${reads.join(', ')}`, () => {
      const query = planned(chart as AnyResource, raw) as PlannedChart
      assert.deepEqual(
        query.items.map((item) => (item.kind === 'event' ? item.reads : undefined)),
        reads,
      )
    })
  }

  /** The tables a decision names, as the compiled statement reads them. */
  const TABLES: Record<Reads, RegExp> = {
    rollup: /FROM (session|page)_rollup\b/,
    settled: /FROM (sessions|page_views)_settled\b/,
    hours: /toStartOfHour\(created_at\) >= \{start:/,
    events: /FROM events\b/,
  }

  it('compiles a statement that reads what its plan decided, and no rollup it did not', () => {
    for (const [name, resource, raw, reads] of INSIGHTS) {
      const { sql } = resource.compile(planned(resource, raw))
      assert.match(sql, TABLES[reads], name)
      if (reads !== 'rollup') assert.doesNotMatch(sql, TABLES.rollup, name)
      if (resource === (pages as AnyResource))
        assert.equal(sql.includes("CAST([], 'Array(Date)') AS view_days"), reads === 'events', `${name}: no stored view answers`)
    }
  })
})
