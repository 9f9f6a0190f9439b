// OpenPanel's analytics routes on OpenPanel's own router fixture (Alice, Bob without events, Charlie; its
// eight events plus one page view for Charlie's second session, which Quarry derives from events): every
// answer worked out by hand below, in OpenPanel's shapes, and the 400s of its parameters.
import assert from 'node:assert/strict'
import type { RawEvent } from '../reference/model'
import { request } from '../support/openapi-request'
import { startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'op', timezone: 'UTC' }
const NOW = new Date('2024-03-20T12:00:00Z')
const ORIGIN = 'https://example.com'

const event = (
  id: number,
  name: string,
  who: 'alice' | 'charlie',
  session: string,
  at: string,
  more: Partial<RawEvent> = {},
): RawEvent => ({
  id: `00000000-0000-0000-0000-${String(id).padStart(12, '0')}`,
  name,
  device_id: `dev-${who}`,
  profile_id: `profile-${who}`,
  session_id: session,
  created_at: at,
  path: '/',
  origin: ORIGIN,
  country: 'US',
  browser: who === 'alice' ? 'Chrome' : 'Firefox',
  device: 'desktop',
  sdk_name: 'web',
  sdk_version: '1.0.0',
  ...more,
})

const EVENTS: RawEvent[] = [
  // Alice, two days ago: 240 s, no page view (OpenPanel's `page_view` is not a page view): a bounce.
  event(1, 'session_start', 'alice', 'sess-alice-1', '2024-03-18T11:56:00.000Z'),
  event(2, 'page_view', 'alice', 'sess-alice-1', '2024-03-18T11:58:00.000Z', { path: '/home' }),
  event(3, 'session_end', 'alice', 'sess-alice-1', '2024-03-18T12:00:00.000Z', { duration: 120_000 }),
  // Charlie, five days ago: 1,200 s, one page view (/shop): a bounce; 9,900 of revenue.
  event(4, 'session_start', 'charlie', 'sess-charlie-1', '2024-03-15T11:40:00.000Z'),
  event(5, 'screen_view', 'charlie', 'sess-charlie-1', '2024-03-15T11:45:00.000Z', { path: '/shop' }),
  event(6, 'page_view', 'charlie', 'sess-charlie-1', '2024-03-15T11:50:00.000Z', { path: '/shop' }),
  event(7, 'purchase', 'charlie', 'sess-charlie-1', '2024-03-15T11:55:00.000Z', { path: '/checkout', revenue: 9900 }),
  event(8, 'session_end', 'charlie', 'sess-charlie-1', '2024-03-15T12:00:00.000Z', { duration: 300_000 }),
  // Charlie, ten days ago: one view of /shop, entered there: a bounce of 0 s.
  event(9, 'screen_view', 'charlie', 'sess-charlie-2', '2024-03-10T12:00:00.000Z', { path: '/shop' }),
]

/** Three sessions, all bounces: 240 + 1,200 + 0 seconds; two page views; two visitors. */
const TOTALS = {
  bounce_rate: 100,
  unique_visitors: 2,
  total_sessions: 3,
  avg_session_duration: 480,
  total_screen_views: 2,
  views_per_session: 0.67,
  total_revenue: 9900,
}
const EMPTY = {
  bounce_rate: 0,
  unique_visitors: 0,
  total_sessions: 0,
  avg_session_duration: 0,
  total_screen_views: 0,
  views_per_session: 0,
  total_revenue: 0,
}
const row = (figures: Partial<typeof TOTALS>) => ({ ...EMPTY, ...figures })

/** The days of OpenPanel's default window: from 30 days before today (2024-02-19) to today. */
const DAYS = Array.from({ length: 31 }, (_, index) => new Date(Date.UTC(2024, 1, 19 + index)).toISOString().slice(0, 10))

describe("OpenPanel's analytics routes on its router fixture", function () {
  this.timeout(180_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, EVENTS))
    h.now = NOW
  })
  after(() => h.close())

  const get = (path: string) => request(h.app).get(`/insights/${PROJECT.id}/${path}`).set(auth)
  const ok = async (path: string) => {
    const res = await get(path)
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`)
    return res
  }

  it('overview: the metrics of the last 30 days and today, by day, with the window', async () => {
    const { body } = await ok('overview')
    assert.deepEqual(body.summary, TOTALS)
    assert.equal(body.interval, 'day')
    assert.equal(body.startDate, '2024-02-19T00:00:00.000+00:00')
    assert.equal(body.endDate, '2024-03-20T12:00:00.000+00:00')
    const byDay: Record<string, object> = {
      '2024-03-10': row({ bounce_rate: 100, unique_visitors: 1, total_sessions: 1, total_screen_views: 1, views_per_session: 1 }),
      '2024-03-15': row({
        bounce_rate: 100,
        unique_visitors: 1,
        total_sessions: 1,
        avg_session_duration: 1200,
        total_screen_views: 1,
        views_per_session: 1,
        total_revenue: 9900,
      }),
      '2024-03-18': row({ bounce_rate: 100, unique_visitors: 1, total_sessions: 1, avg_session_duration: 240 }),
    }
    assert.deepEqual(
      body.series,
      DAYS.map((day) => ({ date: `${day}T00:00:00.000+00:00`, ...(byDay[day] ?? EMPTY) })),
    )
    assert.equal((await ok('overview?interval=week&startDate=2024-03-11&endDate=2024-03-17')).body.series.length, 1)
  })

  it('overview: 400 for an interval OpenPanel does not take, listing every problem', async () => {
    for (const query of ['interval=invalid', 'interval=minute']) {
      const res = await get(`overview?${query}`)
      assert.equal(res.status, 400, query)
      assert.match(JSON.stringify(res.body.details.issues), /interval/)
    }
    const res = await get('overview?interval=year&range=forever&colour=red')
    assert.equal(res.status, 400)
    assert.deepEqual(res.body.details.issues.map((issue: { path: string[] }) => issue.path[0]).sort(), ['colour', 'interval', 'range'])
  })

  it('active_users: distinct visitors active in the 7 days up to each day (WAU), and in one day (DAU)', async () => {
    const weekly = (day: string) => (day >= '2024-03-18' ? 2 : day >= '2024-03-10' ? 1 : 0)
    assert.deepEqual((await ok('active_users')).body, {
      window_days: 7,
      label: 'WAU',
      series: DAYS.map((date) => ({ date, users: weekly(date) })),
    })
    const daily = ['2024-03-10', '2024-03-15', '2024-03-18']
    assert.deepEqual((await ok('active_users?days=1')).body, {
      window_days: 1,
      label: 'DAU',
      series: DAYS.map((date) => ({ date, users: daily.includes(date) ? 1 : 0 })),
    })
    // Charlie's day 10 days ago counts for the first day of a window starting 4 days later.
    assert.deepEqual((await ok('active_users?days=5&startDate=2024-03-14&endDate=2024-03-15')).body.series, [
      { date: '2024-03-14', users: 1 },
      { date: '2024-03-15', users: 1 },
    ])
    // 40 days after each active day: the window's 31 days and 39 trailing ones are more than one UInt64 holds,
    // so the other statement answers; until the 20th it counts as the week does.
    assert.deepEqual((await ok('active_users?days=40')).body, {
      window_days: 40,
      label: '40d active',
      series: DAYS.map((date) => ({ date, users: weekly(date) })),
    })
    for (const days of ['0', '91', 'x']) assert.equal((await get(`active_users?days=${days}`)).status, 400, days)
  })

  const SHOP = { title: '', origin: ORIGIN, path: '/shop', sessions: 2, pageviews: 2 }

  it('pages/top: every page of the window, most sessions first', async () => {
    assert.deepEqual((await ok('pages/top')).body, [{ ...SHOP, bounce_rate: 100, avg_duration: null }])
    assert.deepEqual((await ok('pages/top?startDate=2024-03-18')).body, [])
  })

  it("pages/performance: the count of pages, the ones shown and OpenPanel's signals", async () => {
    assert.deepEqual((await ok('pages/performance')).body, {
      total_pages: 1,
      shown: 1,
      pages: [
        {
          origin: ORIGIN,
          path: '/shop',
          title: '',
          sessions: 2,
          pageviews: 2,
          avg_duration: null,
          bounce_rate: 100,
          seo_signals: { high_bounce: true, low_engagement: true, good_landing_page: false },
        },
      ],
    })
    for (const query of ['limit=501', 'sortBy=title', 'sortOrder=up'])
      assert.equal((await get(`pages/performance?${query}`)).status, 400, query)
  })

  const ALL = { sessions: 3, pageviews: 2, bounce_rate: 100, avg_session_duration: 480 }

  it('traffic: one breakdown per request, its default and the others it offers', async () => {
    assert.deepEqual((await ok('traffic/referrers')).body, [{ name: null, ...ALL }])
    assert.deepEqual((await ok('traffic/geo')).body, [{ name: 'US', ...ALL }])
    assert.deepEqual((await ok('traffic/geo?breakdown=city')).body, [{ prefix: 'US', name: null, ...ALL }])
    assert.deepEqual((await ok('traffic/devices')).body, [{ name: 'desktop', ...ALL }])
    assert.deepEqual((await ok('traffic/devices?breakdown=browser')).body, [
      { name: 'Firefox', sessions: 2, pageviews: 2, bounce_rate: 100, avg_session_duration: 600 },
      { name: 'Chrome', sessions: 1, pageviews: 0, bounce_rate: 100, avg_session_duration: 240 },
    ])
    const res = await ok('traffic/devices?breakdown=browser&limit=1')
    assert.equal(res.body.length, 1)
    assert.match(res.headers.link, /cursor=2/)
    const refused = await get('traffic/referrers?breakdown=country&limit=0')
    assert.equal(refused.status, 400)
    assert.deepEqual(refused.body.details.issues.map((issue: { path: string[] }) => issue.path[0]).sort(), ['breakdown', 'limit'])
  })

  // compare=previous over 15-19 March: the window before is 10-14 March (Charlie's second session alone).
  const COMPARED = 'startDate=2024-03-15&endDate=2024-03-19&compare=previous'
  const NO_CHANGE = { sessions: null, pageviews: null, bounce_rate: null, avg_session_duration: null }

  it('overview, compare: summary and each series point gain previous and change', async () => {
    const { body } = await ok(`overview?${COMPARED}`)
    const before = row({ bounce_rate: 100, unique_visitors: 1, total_sessions: 1, total_screen_views: 1, views_per_session: 1 })
    assert.deepEqual(body.summary, {
      ...row({ bounce_rate: 100, unique_visitors: 2, total_sessions: 2, avg_session_duration: 720, total_screen_views: 1 }),
      views_per_session: 0.5,
      total_revenue: 9900,
      previous: before,
      change: {
        bounce_rate: 0,
        unique_visitors: 100,
        total_sessions: 100,
        avg_session_duration: null,
        total_screen_views: 0,
        views_per_session: -50,
        total_revenue: null,
      },
    })
    assert.equal(body.startDate, '2024-03-15T00:00:00.000+00:00')
    assert.equal(body.series.length, 5)
    const nullChanges = { unique_visitors: null, total_sessions: null, avg_session_duration: null, total_screen_views: null }
    // 15 March (Charlie's first session) beside 10 March (his second); 16 March, empty, beside 11 March, empty.
    assert.deepEqual(body.series[0].previous, { date: '2024-03-10T00:00:00.000+00:00', ...before })
    assert.deepEqual(body.series[0].change, {
      ...nullChanges,
      bounce_rate: 0,
      unique_visitors: 0,
      total_sessions: 0,
      total_screen_views: 0,
      views_per_session: 0,
      total_revenue: null,
    })
    assert.deepEqual(body.series[1], {
      date: '2024-03-16T00:00:00.000+00:00',
      ...EMPTY,
      previous: { date: '2024-03-11T00:00:00.000+00:00', ...EMPTY },
      change: { ...nullChanges, bounce_rate: 0, views_per_session: null, total_revenue: null },
    })
    // 18 March (Alice's session, 240 s) beside 13 March, empty: the bounce rate gains 100 points.
    assert.deepEqual(body.series[3].change, { ...nullChanges, bounce_rate: 100, views_per_session: null, total_revenue: null })
  })

  it('pages/top, compare: each page gains its figures over the window before', async () => {
    // Charlie's first session entered on /, his second on /shop: a bounce rate there before, none now.
    const figures = { sessions: 1, pageviews: 1, bounce_rate: null, avg_duration: null }
    assert.deepEqual((await ok(`pages/top?${COMPARED}`)).body, [
      {
        ...SHOP,
        ...figures,
        previous: { ...figures, bounce_rate: 100 },
        change: { sessions: 0, pageviews: 0, bounce_rate: null, avg_duration: null },
      },
    ])
  })

  it('traffic, compare: each row gains previous (null for a key without data before) and change', async () => {
    const body = (await ok(`traffic/devices?breakdown=browser&${COMPARED}`)).body
    const byName = Object.fromEntries(body.map((entry: { name: string }) => [entry.name, entry]))
    assert.equal(body.length, 2)
    assert.deepEqual(byName.Firefox, {
      name: 'Firefox',
      sessions: 1,
      pageviews: 1,
      bounce_rate: 100,
      avg_session_duration: 1200,
      previous: { sessions: 1, pageviews: 1, bounce_rate: 100, avg_session_duration: 0 },
      change: { sessions: 0, pageviews: 0, bounce_rate: 0, avg_session_duration: null },
    })
    assert.deepEqual(byName.Chrome, {
      name: 'Chrome',
      sessions: 1,
      pageviews: 0,
      bounce_rate: 100,
      avg_session_duration: 240,
      previous: null,
      change: NO_CHANGE,
    })
    // A year before the default window: no data at all.
    assert.deepEqual((await ok('traffic/geo?breakdown=city&compare=year')).body, [
      { prefix: 'US', name: null, ...ALL, previous: null, change: NO_CHANGE },
    ])
  })

  it('compare: 400 for a mode it does not know, with the other problems', async () => {
    for (const path of ['overview', 'pages/top', 'traffic/referrers']) {
      const res = await get(`${path}?compare=week&range=forever`)
      assert.equal(res.status, 400, path)
      assert.deepEqual(res.body.details.issues.map((issue: { path: string[] }) => issue.path[0]).sort(), ['compare', 'range'], path)
    }
  })

  it('engagement: identified visitors by days since their last event', async () => {
    assert.deepEqual((await ok('engagement')).body, {
      summary: {
        total_identified_users: 2,
        active_last_7_days: 2,
        active_8_to_14_days: 0,
        active_15_to_30_days: 0,
        inactive_31_to_60_days: 0,
        churned_60_plus_days: 0,
      },
      distribution: [
        { days: 2, users: 1 },
        { days: 5, users: 1 },
      ],
    })
    h.now = new Date('2024-04-30T12:00:00Z')
    try {
      assert.deepEqual((await ok('engagement')).body.summary, {
        total_identified_users: 2,
        active_last_7_days: 0,
        active_8_to_14_days: 0,
        active_15_to_30_days: 0,
        inactive_31_to_60_days: 2,
        churned_60_plus_days: 0,
      })
    } finally {
      h.now = NOW
    }
  })

  it('events: the newest first, every column by its name, `limit` and `eventNames`', async () => {
    const all = (await ok('events')).body
    assert.deepEqual(
      all.map((row: { id: string }) => Number(row.id.slice(-2))),
      [3, 2, 1, 8, 7, 6, 5, 4, 9],
    )
    assert.deepEqual(
      (await ok('events?limit=2')).body.map((row: { name: string }) => row.name),
      ['session_end', 'page_view'],
    )
    const [purchase, ...others] = (await ok('events?eventNames=purchase')).body
    assert.deepEqual(others, [])
    assert.equal(purchase.name, 'purchase')
    assert.equal(purchase.profile_id, 'profile-charlie')
    assert.equal(purchase.session_id, 'sess-charlie-1')
    assert.equal(purchase.created_at, '2024-03-15T11:55:00.000+00:00')
    assert.equal(purchase.path, '/checkout')
    assert.equal(purchase.revenue, 9900)
    assert.equal(purchase.sdk_name, 'web')
    assert.deepEqual(
      (await ok('events?eventNames=page_view&eventNames=screen_view&path=/shop')).body.map((row: { id: string }) =>
        Number(row.id.slice(-1)),
      ),
      [6, 5, 9],
    )
    assert.deepEqual((await ok('events?browser=Chrome&startDate=2024-03-18&limit=1')).body.length, 1)
    assert.deepEqual((await ok(`events?properties=${encodeURIComponent('{"plan":"pro"}')}`)).body, [])
  })

  it('events: 400 for a limit out of range and bad JSON, listing every problem', async () => {
    for (const query of [
      'limit=9999',
      'limit=0',
      'format=csv',
      'range=forever',
      'range=custom',
      `properties=${encodeURIComponent('["x"]')}`,
    ]) {
      assert.equal((await get(`events?${query}`)).status, 400, query)
    }
    const res = await get('events?limit=101&properties=nope')
    assert.equal(res.status, 400)
    assert.deepEqual(res.body.details.issues.map((issue: { path: string[] }) => issue.path[0]).sort(), ['limit', 'properties'])
  })
})
