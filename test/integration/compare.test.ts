// `compare=previous|year` on hand-checked sessions: a day (2024-03-05, UTC) compared with the day before and
// with the same day a year before, on /metrics (totals and a bucket), /pages, both modes of /pages/entry_exit,
// two breakdowns (one with a prefix), /events/names and /funnel. Every expected `previous` and `change` is
// worked out by hand below; a key without data in the compared window has `previous: null`.
import assert from 'node:assert/strict'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import type { RawEvent } from '../reference/model'
import { request } from '../support/openapi-request'
import { startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'compare', timezone: 'UTC' }
const NOW = new Date('2024-03-20T00:00:00Z')
const ORIGIN = 'https://a.example'

let n = 0
const event = (session: string, name: string, at: string, path: string, place: { country?: string; region?: string } = {}): RawEvent => ({
  id: `00000000-0000-4000-8000-${String((n += 1)).padStart(12, '0')}`,
  name,
  device_id: `device-${session}`,
  session_id: session,
  created_at: `${at}Z`,
  origin: ORIGIN,
  path,
  ...place,
})

const DE_BY = { country: 'DE', region: 'BY' }
const DE_BE = { country: 'DE', region: 'BE' }
const FR = { country: 'FR' }
const US = { country: 'US' }

const EVENTS: RawEvent[] = [
  // The day, 2024-03-05. s1: /a then /b, 60 s, not a bounce (entry /a, exit /b).
  event('s1', 'screen_view', '2024-03-05T10:00:00.000', '/a', DE_BY),
  event('s1', 'screen_view', '2024-03-05T10:01:00.000', '/b', DE_BY),
  // s2: one view of /a, a bounce, 0 s.
  event('s2', 'screen_view', '2024-03-05T11:00:00.000', '/a', DE_BE),
  // s3: one view of /b then a signup, a bounce, 120 s.
  event('s3', 'screen_view', '2024-03-05T12:00:00.000', '/b', FR),
  event('s3', 'signup', '2024-03-05T12:02:00.000', '/b', FR),
  // The day before. p1: /a, /a, /c, 90 s (entry /a, exit /c); gaps 30 s and 60 s.
  event('p1', 'screen_view', '2024-03-04T09:00:00.000', '/a', DE_BY),
  event('p1', 'screen_view', '2024-03-04T09:00:30.000', '/a', DE_BY),
  event('p1', 'screen_view', '2024-03-04T09:01:30.000', '/c', DE_BY),
  // p2: one view of /b at 10:00, a bounce, 0 s.
  event('p2', 'screen_view', '2024-03-04T10:00:00.000', '/b', US),
  // p3: two signups and no page view, a bounce, 5 s (entry /x, no exit).
  event('p3', 'signup', '2024-03-04T11:00:00.000', '/x', US),
  event('p3', 'signup', '2024-03-04T11:00:05.000', '/x', US),
  // A year before, 2023-03-05. y1: two views of /b, 10 s.
  event('y1', 'screen_view', '2023-03-05T10:00:00.000', '/b', FR),
  event('y1', 'screen_view', '2023-03-05T10:00:10.000', '/b', FR),
]

const DAY = 'startDate=2024-03-05&endDate=2024-03-05'
const NO_CHANGE = { sessions: null, pageviews: null, bounce_rate: null, avg_session_duration: null }

describe('compare=previous|year on hand-checked sessions', function () {
  this.timeout(300_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, EVENTS))
    h.now = NOW
  })
  after(() => h.close())

  /** Each answer checked by hand above, by URL: the compacted days must answer the same. */
  const checked = new Map<string, unknown>()
  const get = async (route: string, query: string, headers: Record<string, string> = { 'cache-control': 'no-cache' }) => {
    const url = `/insights/${PROJECT.id}/${route}?${query}`
    const res = await request(h.app)
      .get(url)
      .set({ ...auth, ...headers })
    assert.equal(res.status, 200, `${url}\n${JSON.stringify(res.body)}`)
    checked.set(url, res.body)
    return res
  }

  it('a breakdown: each kept value beside its figures the day before, null where it had none', async () => {
    const { body } = await get('country', `${DAY}&compare=previous`)
    assert.deepEqual(body, [
      // DE: s1, s2 (3 views, s2 bounced, 60 + 0 s) against p1 (3 views, no bounce, 90 s). US (the day before only) is not asked.
      {
        name: 'DE',
        sessions: 2,
        pageviews: 3,
        bounce_rate: 50,
        avg_session_duration: 30,
        previous: { sessions: 1, pageviews: 3, bounce_rate: 0, avg_session_duration: 90 },
        // 100 x (2 - 1) / 1; 0; 50 - 0 points; 100 x (30 - 90) / 90 = -66.666...
        change: { sessions: 100, pageviews: 0, bounce_rate: 50, avg_session_duration: -66.67 },
      },
      { name: 'FR', sessions: 1, pageviews: 1, bounce_rate: 100, avg_session_duration: 120, previous: null, change: NO_CHANGE },
    ])
  })

  it('a breakdown against the same day a year before', async () => {
    const { body } = await get('country', `${DAY}&compare=year`)
    assert.deepEqual(
      body.map((row: Record<string, unknown>) => [row.name, row.previous, row.change]),
      [
        ['DE', null, NO_CHANGE],
        // y1: 2 views, 10 s. 100 x (1 - 2) / 2; 100 - 0 points; 100 x (120 - 10) / 10.
        [
          'FR',
          { sessions: 1, pageviews: 2, bounce_rate: 0, avg_session_duration: 10 },
          { sessions: 0, pageviews: -50, bounce_rate: 100, avg_session_duration: 1100 },
        ],
      ],
    )
  })

  it('a breakdown with a prefix matches rows by both: (US, empty) the day before is not (FR, empty)', async () => {
    const { body } = await get('region', `${DAY}&compare=previous`)
    assert.deepEqual(
      body.map((row: Record<string, unknown>) => [row.prefix, row.name, row.previous, row.change]),
      [
        ['DE', 'BE', null, NO_CHANGE],
        // s1 (2 views, 60 s) against p1 (3 views, 90 s).
        [
          'DE',
          'BY',
          { sessions: 1, pageviews: 3, bounce_rate: 0, avg_session_duration: 90 },
          { sessions: 0, pageviews: -33.33, bounce_rate: 0, avg_session_duration: -33.33 },
        ],
        ['FR', null, null, NO_CHANGE],
      ],
    )
  })

  it('pages: sessions, views, bounce rate and mean gap of each kept page the day before', async () => {
    const { body } = await get('pages', `${DAY}&compare=previous`)
    assert.deepEqual(
      body.map((row: Record<string, unknown>) => [row.path, row.previous, row.change]),
      [
        // /a: s1 and s2 entered (one bounce), one gap of 60 s; before p1 viewed it twice, entered there, gaps 30 and 60 s.
        [
          '/a',
          { sessions: 1, pageviews: 2, bounce_rate: 0, avg_duration: 45 },
          { sessions: 100, pageviews: 0, bounce_rate: 50, avg_duration: 33.33 },
        ],
        // /b: s1 and s3, a view each (s3 entered and bounced), no gap; before p2 only (entered, bounced). /c is not asked.
        [
          '/b',
          { sessions: 1, pageviews: 1, bounce_rate: 100, avg_duration: null },
          { sessions: 100, pageviews: 100, bounce_rate: 0, avg_duration: null },
        ],
      ],
    )
  })

  it('entry pages and exit pages, each by its own page the day before', async () => {
    const entries = await get('pages/entry_exit', `mode=entry&${DAY}&compare=previous`)
    assert.deepEqual(
      entries.body.map((row: Record<string, unknown>) => [row.path, row.previous, row.change]),
      [
        // /a: s1, s2 (50 %, 30 s) against p1 (0 %, 90 s); /b: s3 (100 %, 120 s) against p2 (100 %, 0 s).
        ['/a', { sessions: 1, bounce_rate: 0, avg_session_duration: 90 }, { sessions: 100, bounce_rate: 50, avg_session_duration: -66.67 }],
        ['/b', { sessions: 1, bounce_rate: 100, avg_session_duration: 0 }, { sessions: 0, bounce_rate: 0, avg_session_duration: null }],
      ],
    )
    const exits = await get('pages/entry_exit', `mode=exit&${DAY}&compare=previous`)
    assert.deepEqual(
      exits.body.map((row: Record<string, unknown>) => [row.path, row.exit_rate, row.previous, row.change]),
      [
        // /b: s1 and s3 leave there (its 2 views); the day before p2 (its 1 view); p1 left on /c, which is not asked.
        [
          '/b',
          100,
          { sessions: 1, bounce_rate: 100, avg_session_duration: 0, exit_rate: 100 },
          { sessions: 100, bounce_rate: -50, avg_session_duration: null, exit_rate: 0 },
        ],
        ['/a', 50, null, { sessions: null, bounce_rate: null, avg_session_duration: null, exit_rate: null }],
      ],
    )
  })

  it('metrics: the totals and each bucket beside the compared day and its bucket of the same rank', async () => {
    const { body } = await get('metrics', `${DAY}&compare=previous`)
    // The day: 3 sessions, 2 bounces, 60 + 0 + 120 s, 4 views. The day before: 3 sessions, 2 bounces, 90 + 0 + 5 s, 4 views.
    assert.deepEqual(body.previous, {
      bounce_rate: 66.67,
      unique_visitors: 3,
      total_sessions: 3,
      avg_session_duration: 31.67,
      total_screen_views: 4,
      views_per_session: 1.33,
      total_revenue: 0,
    })
    // 100 x (60 - 31.67) / 31.67 = 89.453...; no revenue before: null.
    assert.deepEqual(body.change, {
      bounce_rate: 0,
      unique_visitors: 0,
      total_sessions: 0,
      avg_session_duration: 89.45,
      total_screen_views: 0,
      views_per_session: 0,
      total_revenue: null,
    })
    assert.equal(body.series.length, 24)
    // 10:00: s1 (2 views, 60 s) against p2 at 10:00 the day before (1 view, a bounce, 0 s).
    const ten = body.series[10]
    assert.equal(ten.date, '2024-03-05T10:00:00.000+00:00')
    assert.deepEqual(ten.previous, {
      date: '2024-03-04T10:00:00.000+00:00',
      bounce_rate: 100,
      unique_visitors: 1,
      total_sessions: 1,
      avg_session_duration: 0,
      total_screen_views: 1,
      views_per_session: 1,
      total_revenue: 0,
    })
    assert.deepEqual(ten.change, {
      bounce_rate: -100,
      unique_visitors: 0,
      total_sessions: 0,
      avg_session_duration: null,
      total_screen_views: 100,
      views_per_session: 100,
      total_revenue: null,
    })
  })

  it('metrics against a year before: the year-old day is bucketed from its own start', async () => {
    const { body } = await get('metrics', `${DAY}&compare=year`)
    assert.equal(body.previous.total_sessions, 1)
    assert.equal(body.series[10].previous.date, '2023-03-05T10:00:00.000+00:00')
    assert.equal(body.series[10].previous.total_screen_views, 2)
  })

  it('event names: counts of each kept name the day before', async () => {
    const { body } = await get('events/names', `${DAY}&compare=previous`)
    assert.deepEqual(
      body.map((row: Record<string, unknown>) => [row.name, row.count, row.previous, row.change]),
      [
        ['screen_view', 4, { count: 4 }, { count: 0 }],
        ['signup', 1, { count: 2 }, { count: -50 }],
      ],
    )
  })

  it('funnel: the same steps over the day before, rates changing in points', async () => {
    const { body } = await get('funnel', `${DAY}&steps=screen_view&steps=signup&compare=previous`)
    // The day: s1, s2, s3 enter, s3 signs up. The day before: p1, p2 enter, nobody signs up after a view.
    assert.deepEqual(body.previous, {
      steps: [
        { step: 1, eventName: 'screen_view', users: 2, conversionRateFromStart: 100, dropoffPercent: 100, isHighestDropoff: true },
        { step: 2, eventName: 'signup', users: 0, conversionRateFromStart: 0, dropoffPercent: null, isHighestDropoff: false },
      ],
      totalUsers: 2,
      completedUsers: 0,
      overallConversionRate: 0,
    })
    assert.deepEqual(body.change, {
      steps: [
        // 100 x (3 - 2) / 2; 100 - 100; 66.67 - 100 points.
        { step: 1, users: 50, conversionRateFromStart: 0, dropoffPercent: -33.33 },
        { step: 2, users: null, conversionRateFromStart: 33.33, dropoffPercent: null },
      ],
      totalUsers: 50,
      completedUsers: null,
      overallConversionRate: 33.33,
    })
  })

  it('the compared statement is cached apart: a hit only once both are, and a different compare misses', async () => {
    const query = `${DAY}&compare=previous&limit=3`
    assert.equal((await get('referrer_type', query)).headers['x-cache'], 'miss')
    assert.equal((await get('referrer_type', query, {})).headers['x-cache'], 'hit')
    // The main statement is cached, the year-old one is not.
    assert.equal((await get('referrer_type', `${DAY}&compare=year&limit=3`, {})).headers['x-cache'], 'miss')
  })

  it('refuses an unknown compare, listing it with every other problem', async () => {
    for (const route of ['metrics', 'country', 'pages', 'pages/entry_exit?mode=entry&', 'events/names', 'funnel?steps=a&steps=b&']) {
      const [path, own = ''] = route.split('?')
      const res = await request(h.app).get(`/insights/${PROJECT.id}/${path}?${own}compare=lastWeek&range=never`).set(auth)
      assert.equal(res.status, 400, `${route}: ${JSON.stringify(res.body)}`)
      const paths = res.body.details.issues.map((issue: { path: string[] }) => issue.path[0])
      assert.ok(paths.includes('compare') && paths.includes('range'), `${route}: ${JSON.stringify(res.body)}`)
    }
    const res = await request(h.app).get(`/insights/${PROJECT.id}/sessions?compare=previous`).set(auth)
    assert.equal(res.status, 400, 'a route that does not compare refuses the parameter')
  })

  it('a batch answers each compared question as its GET does', async () => {
    const params = { startDate: '2024-03-05', endDate: '2024-03-05', compare: 'previous' }
    const requests = [
      { id: 'country', route: 'country', params },
      { id: 'metrics', route: 'metrics', params },
      { id: 'exits', route: 'pages/entry_exit', params: { ...params, mode: 'exit' } },
    ]
    const res = await request(h.app)
      .post(`/insights/${PROJECT.id}/batch`)
      .set({ ...auth, 'cache-control': 'no-cache' })
      .send({ requests })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const bodies = res.body.results.map((result: { status: number; body: unknown }) => [result.status, result.body])
    assert.deepEqual(bodies, [
      [200, checked.get(`/insights/${PROJECT.id}/country?${DAY}&compare=previous`)],
      [200, checked.get(`/insights/${PROJECT.id}/metrics?${DAY}&compare=previous`)],
      [200, checked.get(`/insights/${PROJECT.id}/pages/entry_exit?mode=exit&${DAY}&compare=previous`)],
    ])
  })

  it('answers the same from compacted days (the session rollup, the combined rows)', async () => {
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.ok(report.days > 0, JSON.stringify(report))
    assert.ok(checked.size >= 10, 'the hand-checked answers ran first')
    for (const [url, body] of checked) {
      const res = await request(h.app)
        .get(url)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.deepEqual(res.body, body, url)
    }
  })
})
