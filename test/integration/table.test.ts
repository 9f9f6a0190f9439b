// `/table` on hand-checked sessions: two sessions of one visitor, a session without page views (no exit path),
// a session without a country (null, ordered last), revenue and a goal with a property filter, flat and tree
// filters, orders and pages. The same answers from partial rows, from the compacted day, and from the
// reference model (test/reference/table.ts); and every bad parameter listed in one 400.
import assert from 'node:assert/strict'
import type { CompiledQuery } from '../../queries/core/compiled'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import type { RawEvent } from '../reference/model'
import { answerTable } from '../reference/table'
import { request } from '../support/openapi-request'
import { recording } from '../support/recording-runner'
import { startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'tabled', timezone: 'UTC' }
const NOW = new Date('2024-03-20T00:00:00Z')
const ORIGIN = 'https://a.example'

let n = 0
const at =
  (session: string, visitor: string, place: { country: string; device: string }) =>
  (name: string, time: string, path: string, extra: Partial<RawEvent> = {}): RawEvent => ({
    id: `00000000-0000-4000-8000-${String((n += 1)).padStart(12, '0')}`,
    name,
    device_id: `device-${visitor}`,
    profile_id: visitor,
    session_id: session,
    created_at: `2024-03-05T${time}Z`,
    origin: ORIGIN,
    path,
    ...place,
    ...extra,
  })

const s1 = at('s1', 'u1', { country: 'DE', device: 'desktop' })
const s2 = at('s2', 'u1', { country: 'DE', device: 'desktop' })
const s3 = at('s3', 'u2', { country: 'DE', device: 'mobile' })
const s4 = at('s4', 'u3', { country: 'FR', device: 'desktop' })
const s5 = at('s5', 'u4', { country: '', device: 'desktop' })

const EVENTS: RawEvent[] = [
  // u1: 180 s, views /a then /b (exit /b), 4 events, a purchase of 500 at price 20.
  s1('screen_view', '10:00:00.000', '/a'),
  s1('add_to_cart', '10:01:00.000', '/a'),
  s1('screen_view', '10:02:00.000', '/b'),
  s1('purchase', '10:03:00.000', '/b', { revenue: 500, properties: { price: '20' } }),
  // u1 again: one view of /a, a bounce, 0 s.
  s2('screen_view', '11:00:00.000', '/a'),
  // u2 on mobile: one view of /b (a bounce), a purchase of 300 at price 5, 30 s.
  s3('screen_view', '12:00:00.000', '/b'),
  s3('purchase', '12:00:30.000', '/b', { revenue: 300, properties: { price: '5' } }),
  // u3 from FR: no page view (no exit path, a bounce), entered on /x, a purchase of 1000 at price 50, 60 s.
  s4('signup', '13:00:00.000', '/x'),
  s4('purchase', '13:01:00.000', '/y', { revenue: 1000, properties: { price: '50' } }),
  // u4 without a country: /a then /c, 600 s.
  s5('screen_view', '14:00:00.000', '/a'),
  s5('screen_view', '14:10:00.000', '/c'),
]

const DAY = 'startDate=2024-03-05&endDate=2024-03-05'
const json = (value: unknown) => encodeURIComponent(JSON.stringify(value))
const BIG_PURCHASE = json({ performed: { name: 'purchase', filters: [{ name: 'properties.price', operator: 'gt', value: [10] }] } })

/** By hand: each answer's rows, and whether a next page exists. */
const CASES: [string, Record<string, unknown>[], boolean][] = [
  [
    `dimensions=country&metrics=sessions,visitors,pageviews,bounce_rate,avg_session_duration,views_per_session,events,revenue&${DAY}`,
    [
      // s1, s2, s3: u1 twice and u2; views 2 + 1 + 1; s2 and s3 bounce; (180 + 0 + 30) / 3 s; 4 + 1 + 2 events.
      {
        country: 'DE',
        sessions: 3,
        visitors: 2,
        pageviews: 4,
        bounce_rate: 66.67,
        avg_session_duration: 70,
        views_per_session: 1.33,
        events: 7,
        revenue: 800,
      },
      // FR and no country tie at 1 session: FR first, null last.
      {
        country: 'FR',
        sessions: 1,
        visitors: 1,
        pageviews: 0,
        bounce_rate: 100,
        avg_session_duration: 60,
        views_per_session: 0,
        events: 2,
        revenue: 1000,
      },
      {
        country: null,
        sessions: 1,
        visitors: 1,
        pageviews: 2,
        bounce_rate: 0,
        avg_session_duration: 600,
        views_per_session: 2,
        events: 2,
        revenue: 0,
      },
    ],
    false,
  ],
  // One visitor each: ties by device, then exit path, null last. Only s1 and s4 bought above 10; u1's s2
  // does not convert its row, whatever u1 did in s1.
  [
    `dimensions=device,exit_path&metrics=visitors,conversion_rate&goal=${BIG_PURCHASE}&${DAY}`,
    [
      { device: 'desktop', exit_path: '/a', visitors: 1, conversion_rate: 0 },
      { device: 'desktop', exit_path: '/b', visitors: 1, conversion_rate: 100 },
      { device: 'desktop', exit_path: '/c', visitors: 1, conversion_rate: 0 },
      { device: 'desktop', exit_path: null, visitors: 1, conversion_rate: 100 },
      { device: 'mobile', exit_path: '/b', visitors: 1, conversion_rate: 0 },
    ],
    false,
  ],
  [
    `dimensions=device,exit_path&metrics=visitors,conversion_rate&goal=${BIG_PURCHASE}&orderBy=conversion_rate:desc&limit=3&${DAY}`,
    [
      { device: 'desktop', exit_path: '/b', visitors: 1, conversion_rate: 100 },
      { device: 'desktop', exit_path: null, visitors: 1, conversion_rate: 100 },
      { device: 'desktop', exit_path: '/a', visitors: 1, conversion_rate: 0 },
    ],
    true,
  ],
  // Desktop: u1 (s1 bought), u3 (s4 bought), u4: 2 of 3 visitors. Mobile: u2 bought.
  [
    `dimensions=device&metrics=visitors,conversion_rate&goal=${json({ performed: { name: 'purchase' } })}&${DAY}`,
    [
      { device: 'desktop', visitors: 3, conversion_rate: 66.67 },
      { device: 'mobile', visitors: 1, conversion_rate: 100 },
    ],
    false,
  ],
  // A flat event filter keeps s1 and s3 (an event on /b) and counts only their views of /b.
  [
    `dimensions=entry_path&metrics=sessions,pageviews&filters=${json([{ name: 'path', operator: 'is', value: ['/b'] }])}&${DAY}`,
    [
      { entry_path: '/a', sessions: 1, pageviews: 1 },
      { entry_path: '/b', sessions: 1, pageviews: 1 },
    ],
    false,
  ],
  // A tree keeps the sessions without a purchase (s2, s5), and every view of them counts.
  [
    `dimensions=exit_path&metrics=sessions,pageviews,events&orderBy=events:asc&filters=${json({ not: { performed: { name: 'purchase' } } })}&${DAY}`,
    [
      { exit_path: '/a', sessions: 1, pageviews: 1, events: 1 },
      { exit_path: '/c', sessions: 1, pageviews: 2, events: 2 },
    ],
    false,
  ],
  [
    `dimensions=country&metrics=sessions&limit=2&${DAY}`,
    [
      { country: 'DE', sessions: 3 },
      { country: 'FR', sessions: 1 },
    ],
    true,
  ],
  [`dimensions=country&metrics=sessions&limit=2&cursor=2&${DAY}`, [{ country: null, sessions: 1 }], false],
  [
    `dimensions=country&metrics=revenue&orderBy=revenue:asc&${DAY}`,
    [
      { country: null, revenue: 0 },
      { country: 'DE', revenue: 800 },
      { country: 'FR', revenue: 1000 },
    ],
    false,
  ],
]

/** Bad requests, each with every path its 400 must list. */
const BAD: [string, string[]][] = [
  ['', ['dimensions', 'metrics']],
  [
    'dimensions=country,nope,country,device&metrics=sessions,bogus&orderBy=visitors:desc&limit=0',
    ['limit', 'dimensions', 'dimensions.1', 'dimensions.2', 'metrics.1', 'orderBy'],
  ],
  ['dimensions=country&metrics=conversion_rate', ['goal']],
  [`dimensions=country&metrics=sessions&goal=${json({ performed: { name: 'purchase' } })}`, ['goal']],
  ['dimensions=country&metrics=conversion_rate&goal=%7Bnot-json', ['goal']],
  [`dimensions=country&metrics=conversion_rate&goal=${json({ and: [{ performed: {} }] })}`, ['goal']],
  [
    `dimensions=country&metrics=conversion_rate&goal=${json({ performed: { filters: [{ name: 'country', operator: 'is', value: ['DE'] }] } })}`,
    ['goal.performed.filters.0.name'],
  ],
  ['dimensions=country&metrics=sessions&orderBy=sessions:sideways&cursor=2000&limit=100', ['orderBy', 'cursor']],
]

describe('/table on hand-checked sessions', function () {
  this.timeout(180_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, EVENTS))
    h.now = NOW
  })
  after(() => h.close())

  const agrees = async (stage: string, app = h.app) => {
    for (const [query, rows, next] of CASES) {
      const url = `/insights/${PROJECT.id}/table?${query}`
      const model = answerTable({
        events: EVENTS,
        projectTimezone: PROJECT.timezone,
        query: Object.fromEntries(new URLSearchParams(query)),
        now: NOW,
      })
      assert.deepEqual(model.body, rows, `the model, ${url}`)
      assert.equal(model.next, next, `the model, ${url} (next)`)
      const res = await request(app)
        .get(url)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.equal(res.status, 200, `${stage}: ${url}\n${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, rows, `${stage}: ${url}`)
      assert.equal(Boolean(res.headers.link), next, `${stage}: ${url} (Link)`)
    }
  }

  it('answers from partial rows', () => agrees('partial rows'))

  it('answers from the compacted day', async () => {
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.ok(report.days > 0, JSON.stringify(report))
    const ran: CompiledQuery[] = []
    const app = createApp({
      config: h.config,
      runner: recording(h.runner, ran),
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => h.now,
    })
    await agrees('compacted', app)
    const statements = ran.filter((statement) => statement.template === 'insights.table')
    assert.equal(statements.length, CASES.length)
    for (const statement of statements) assert.deepEqual(statement.params.settledDays, ['2024-03-05'])
  })

  it('lists every bad parameter in one 400', async () => {
    for (const [query, paths] of BAD) {
      const res = await request(h.app).get(`/insights/${PROJECT.id}/table?${query}`).set(auth)
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`)
      const listed = (res.body.details.issues as { path: (string | number)[] }[]).map((issue) => issue.path.join('.'))
      for (const path of paths) assert.ok(listed.includes(path), `${query}: ${path} not in ${JSON.stringify(res.body.details.issues)}`)
      const model = answerTable({
        events: EVENTS,
        projectTimezone: PROJECT.timezone,
        query: Object.fromEntries(new URLSearchParams(query)),
        now: NOW,
      })
      assert.equal(model.status, 400, `the model, ${query}`)
    }
  })
})
