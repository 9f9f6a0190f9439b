// `/pages/entry_exit` on hand-checked sessions: an exit on a page viewed twice, a last view tied in one
// millisecond (the larger id exits), a session without page views (an entry page, no exit), and exit rates
// over every view of the kept sessions, also when a filter narrows the views; OpenPanel's 30 days without a
// window. The same answers from partial rows, from compacted days (the rollup without filters, the combined
// rows with them), and from the reference model.
import assert from 'node:assert/strict'
import type { CompiledQuery } from '../../queries/core/compiled'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { recording } from '../support/recording-runner'
import { answerInsights, type RawEvent } from '../reference/model'
import { request } from '../support/openapi-request'
import { startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'UTC' }
const NOW = new Date('2024-03-20T00:00:00Z')
const ORIGIN = 'https://a.example'

let n = 0
const event = (session: string, name: string, at: string, path: string, id?: string): RawEvent => ({
  id: id ?? `00000000-0000-4000-8000-${String((n += 1)).padStart(12, '0')}`,
  name,
  device_id: `device-${session}`,
  session_id: session,
  created_at: `2024-03-05T${at}Z`,
  origin: ORIGIN,
  path,
})

const EVENTS: RawEvent[] = [
  // Entered and left on /a, which it viewed twice; 120 s.
  event('s1', 'screen_view', '10:00:00.000', '/a'),
  event('s1', 'screen_view', '10:01:00.000', '/b'),
  event('s1', 'screen_view', '10:02:00.000', '/a'),
  // One view of /a: a bounce, 0 s.
  event('s2', 'screen_view', '11:00:00.000', '/a'),
  // No page view: entered on /x (its first event), no exit; 60 s.
  event('s3', 'signup', '12:00:00.000', '/x'),
  event('s3', 'purchase', '12:01:00.000', '/y'),
  // Two last views in one millisecond: /b has the larger id, so it is the exit; 300 s.
  event('s4', 'screen_view', '13:00:00.000', '/b'),
  event('s4', 'screen_view', '13:05:00.000', '/c', '00000000-0000-4000-8000-0000000000a0'),
  event('s4', 'screen_view', '13:05:00.000', '/b', '00000000-0000-4000-8000-0000000000f0'),
]

const DAY = 'startDate=2024-03-05&endDate=2024-03-05'
const row = (path: string, sessions: number, bounceRate: number, duration: number, exitRate?: number) => ({
  origin: ORIGIN,
  path,
  sessions,
  bounce_rate: bounceRate,
  avg_session_duration: duration,
  ...(exitRate === undefined ? {} : { exit_rate: exitRate }),
})

/** By hand: each answer's rows. */
const CASES: [string, unknown[]][] = [
  [`mode=entry&${DAY}`, [row('/a', 2, 50, 60), row('/b', 1, 0, 300), row('/x', 1, 100, 60)]],
  // /a: s1 and s2 leave there; /a was viewed 3 times in the day's sessions (s1 twice, s2 once).
  // /b: s4 leaves there; /b was viewed 3 times (s1 once, s4 twice). s3 has no exit.
  [`mode=exit&${DAY}`, [row('/a', 2, 50, 60, 66.67), row('/b', 1, 0, 300, 33.33)]],
  [`mode=exit&${DAY}&limit=1`, [row('/a', 2, 50, 60, 66.67)]],
  [`mode=exit&${DAY}&limit=1&cursor=2`, [row('/b', 1, 0, 300, 33.33)]],
  // A filter keeps s4 only: its exit rate counts both of its views of /b, not only the views the filter keeps.
  [
    `mode=exit&${DAY}&filters=${encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'is', value: ['/c'] }]))}`,
    [row('/b', 1, 0, 300, 50)],
  ],
  [
    `mode=entry&${DAY}&filters=${encodeURIComponent(JSON.stringify([{ name: 'name', operator: 'is', value: ['purchase'] }]))}`,
    [row('/x', 1, 100, 60)],
  ],
  [`mode=exit&${DAY}&filters=${encodeURIComponent(JSON.stringify([{ name: 'name', operator: 'is', value: ['purchase'] }]))}`, []],
]

/** No window: OpenPanel's, from the day 30 days before today (19 February), holds the 5 March sessions; 7 days do not. */
const DEFAULT_WINDOW_CASES: [string, unknown[]][] = [
  ['mode=exit', [row('/a', 2, 50, 60, 66.67), row('/b', 1, 0, 300, 33.33)]],
  ['', [row('/a', 2, 50, 60), row('/b', 1, 0, 300), row('/x', 1, 100, 60)]],
  ['mode=exit&range=7d', []],
]

describe('/pages/entry_exit on hand-checked sessions', function () {
  this.timeout(180_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, EVENTS))
    h.now = NOW
  })
  after(() => h.close())

  const agrees = async (stage: string, app = h.app, cases = CASES) => {
    for (const [query, rows] of cases) {
      const url = `/insights/${PROJECT.id}/pages/entry_exit?${query}`
      const model = answerInsights({
        events: EVENTS,
        projectTimezone: PROJECT.timezone,
        resource: 'pages/entry_exit',
        query: Object.fromEntries(new URLSearchParams(query)),
        now: NOW,
      })
      assert.deepEqual(model.body, rows, `the model, ${url}`)
      const res = await request(app)
        .get(url)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.equal(res.status, 200, `${stage}: ${url}\n${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, rows, `${stage}: ${url}`)
      assert.equal(Boolean(res.headers.link), model.next, `${stage}: ${url} (Link)`)
    }
  }

  it('answers from partial rows', () => agrees('partial rows'))

  it("reads OpenPanel's 30 days when the request names no window", () => agrees('default window', h.app, DEFAULT_WINDOW_CASES))

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
    // Each answer read the day settled: without filters from the session rollup, with them from the combined rows.
    const statements = ran.filter((statement) => statement.template !== 'insights.settled_days')
    assert.deepEqual([...new Set(statements.map((statement) => statement.template))].sort(), [
      'insights.dimension',
      'insights.dimension_rollup',
      'insights.exit_pages',
      'insights.exit_pages_rollup',
    ])
    for (const statement of statements) assert.deepEqual(statement.params.settledDays, ['2024-03-05'], statement.template)
  })

  it('refuses an unknown mode, listing every problem (without one it answers entries, as OpenPanel does)', async () => {
    for (const query of ['mode=middle', 'mode=middle&limit=0']) {
      const res = await request(h.app).get(`/insights/${PROJECT.id}/pages/entry_exit?${query}`).set(auth)
      assert.equal(res.status, 400, JSON.stringify(res.body))
      assert.match(JSON.stringify(res.body), /mode/)
      if (query.includes('limit')) assert.match(JSON.stringify(res.body), /limit/)
    }
  })
})
