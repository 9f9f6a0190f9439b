// `compare` on OpenPanel's routes, without the engine: the compared question each asks (worked by hand) is
// its base's, over the compared window and, for a list, restricted to the keys the answer kept.
import assert from 'node:assert/strict'
import type { Scope } from '../../queries/core/pipeline'
import { overview } from '../../queries/openpanel/overview'
import { pagePerformance, topPages } from '../../queries/openpanel/pages'
import { trafficRoutes } from '../../queries/openpanel/traffic'

const scope: Scope = {
  project: { id: 'op', name: 'op', timezone: 'UTC' },
  now: new Date('2024-03-20T12:00:00Z'),
  sessionLookbackMs: 86_400_000,
}
const DATES = { startDate: '2024-03-15', endDate: '2024-03-19', compare: 'previous' }
/** 10-14 March: the 5 days before 15-19 March. */
const BEFORE = { start: new Date('2024-03-10T00:00:00Z'), end: new Date('2024-03-15T00:00:00Z') }

describe("compare on OpenPanel's routes: the compared question", () => {
  it('traffic: the breakdown asked, over the window before, for the answered (prefix, value) keys only', () => {
    const geo = trafficRoutes.find((route) => route.route === 'geo')?.resource
    assert.ok(geo?.compare)
    const parsed = geo.parse({ ...DATES, breakdown: 'city' }, scope)
    const planned = geo.plan(parsed)
    assert.equal(geo.compare.asked(planned).compare, 'previous')
    const body = [
      { prefix: 'DE', name: 'Berlin', sessions: 2, pageviews: 1, bounce_rate: 50, avg_session_duration: 10 },
      { prefix: 'US', name: null, sessions: 1, pageviews: 0, bounce_rate: 100, avg_session_duration: 0 },
    ]
    const compared = geo.compare.question({ parsed, planned, window: BEFORE, body })
    assert.ok(compared)
    assert.equal(compared.breakdown, 'city')
    const statement = geo.compile(geo.plan(compared))
    assert.deepEqual(
      [statement.params.kept0, statement.params.kept1],
      [
        ['DE', 'US'],
        ['Berlin', ''],
      ],
    )
    assert.equal(geo.compare.question({ parsed, planned, window: BEFORE, body: [] }), undefined)
  })

  it('pages/top: the answered pages only', () => {
    assert.ok(topPages.compare)
    const parsed = topPages.parse(DATES, scope)
    const planned = topPages.plan(parsed)
    const body = [{ origin: 'https://example.com', path: '/shop', sessions: 1 }]
    const compared = topPages.compare.question({ parsed, planned, window: BEFORE, body })
    assert.ok(compared)
    const statement = topPages.compile(topPages.plan(compared))
    assert.deepEqual([statement.params.kept0, statement.params.kept1], [['https://example.com'], ['/shop']])
  })

  it('overview: the window before, by the same interval', () => {
    assert.ok(overview.compare)
    const parsed = overview.parse({ ...DATES, interval: 'week' }, scope)
    const planned = overview.plan(parsed)
    const compared = overview.compare.question({ parsed, planned, window: BEFORE, body: {} })
    assert.ok(compared)
    const again = overview.plan(compared)
    assert.deepEqual([again.window, again.interval, again.compare], [BEFORE, 'week', undefined])
  })

  it('pages/performance takes no compare: a 400 naming it', () => {
    assert.equal(pagePerformance.compare, undefined)
    assert.throws(
      () => pagePerformance.parse({ compare: 'previous' }, scope),
      (error: { issues: { path: string[] }[] }) => error.issues.some((issue) => issue.path[0] === 'compare'),
    )
  })
})
