// Filter trees over sessions: hand-worked answers on four sessions, and random trees (depth up to 4, session
// and performed leaves mixed) over random data in several time zones, answered by the gateway and by the
// reference model, which must agree exactly.
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { DIMENSIONS as REGISTRY_DIMENSIONS } from '../../queries/core/registry'
import { request } from '../support/openapi-request'
import { answerBehaviour } from '../reference/behaviour'
import { answerInsights, listSessions, type RawEvent } from '../reference/model'
import { insertRawEvents, rootHeaders, startHarness, startWithEvents, type Harness } from '../support/harness'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const DAY = '2024-03-10'
const NOW = new Date('2024-03-20T12:00:00Z')

/** One event of the hand-worked sessions: `at` is the time of day on DAY (UTC). */
const event = (session: number, at: string, name: string, path: string, more: Partial<RawEvent> = {}): RawEvent => ({
  id: `00000000-0000-4000-8000-0000000${session}${at.replace(':', '')}`,
  name,
  device_id: `device-${session}`,
  session_id: `session-${session}`,
  created_at: `${DAY}T${at}:00.000Z`,
  path,
  origin: 'https://shop.example',
  ...more,
})

const DE = { country: 'DE' }
/**
 * 1: DE desktop, views / and /pricing, signs up (6 min). 2: US mobile, views /, buys for 500 (10 min).
 * 3: DE mobile, views /blog only (a bounce). 4: FR tablet, views /, signs up, views /docs twice (3 min).
 */
const SESSIONS: RawEvent[] = [
  event(1, '10:00', 'screen_view', '/', { ...DE, device: 'desktop' }),
  event(1, '10:05', 'screen_view', '/pricing', { ...DE, device: 'desktop' }),
  event(1, '10:06', 'signup', '/pricing', { ...DE, device: 'desktop' }),
  event(2, '11:00', 'screen_view', '/', { country: 'US', device: 'mobile' }),
  event(2, '11:10', 'purchase', '/checkout', { country: 'US', device: 'mobile', revenue: 500 }),
  event(3, '12:00', 'screen_view', '/blog', { ...DE, device: 'mobile' }),
  event(4, '13:00', 'screen_view', '/', { country: 'FR', device: 'tablet' }),
  event(4, '13:01', 'signup', '/', { country: 'FR', device: 'tablet' }),
  event(4, '13:02', 'screen_view', '/docs', { country: 'FR', device: 'tablet' }),
  event(4, '13:03', 'screen_view', '/docs', { country: 'FR', device: 'tablet' }),
]

const SIGNED_UP = { performed: { name: 'signup' } }
const FROM_DE_OR_SIGNED_UP = { or: [{ name: 'country', operator: 'is', value: ['DE'] }, SIGNED_UP] }
const NOT_SIGNED_UP = { not: SIGNED_UP }

/** The model's sessions list as the gateway's first page answers it (its `data`), or a 400. */
const sessionsPage = (listed: ReturnType<typeof listSessions>, query: Record<string, string>) =>
  listed === null ? { status: 400, body: null } : { status: 200, body: listed.slice(0, Number(query.limit ?? 20)) }

const url = (resource: string, tree: object, more = '') =>
  `/insights/trees/${resource}?startDate=${DAY}&endDate=${DAY}&timezone=UTC&filters=${encodeURIComponent(JSON.stringify(tree))}${more}`

describe('filter trees', function () {
  this.timeout(600_000)

  describe('hand-worked answers', () => {
    let h: Harness
    let auth: Record<string, string>
    before(async () => {
      ;({ h, auth } = await startWithEvents({ id: 'trees', timezone: 'UTC' }, SESSIONS))
      h.now = NOW
    })
    after(() => h.close())

    /** The gateway's answer, checked against the reference model too. */
    async function answer(path: string): Promise<unknown> {
      const res = await request(h.app).get(path).set(auth)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const parsed = new URL(path, 'http://trees')
      const expected = answerInsights({
        events: SESSIONS,
        projectTimezone: 'UTC',
        resource: parsed.pathname.split('/').pop() as string,
        query: Object.fromEntries(parsed.searchParams),
        now: NOW,
      })
      assert.deepEqual(res.body, expected.body)
      return res.body
    }

    it('an "or" of a session leaf and a performed leaf keeps sessions 1, 3 and 4, with all their views', async () => {
      const body = (await answer(url('metrics', FROM_DE_OR_SIGNED_UP))) as { metrics: object }
      // Views 2 + 1 + 3; session 3 bounced; durations 360, 0 and 180 s; session 2's revenue is left out.
      assert.deepEqual(body.metrics, {
        bounce_rate: 33.33,
        unique_visitors: 3,
        total_sessions: 3,
        avg_session_duration: 180,
        total_screen_views: 6,
        views_per_session: 2,
        total_revenue: 0,
      })
      assert.deepEqual(await answer(url('country', FROM_DE_OR_SIGNED_UP)), [
        { name: 'DE', sessions: 2, pageviews: 3, bounce_rate: 50, avg_session_duration: 180 },
        { name: 'FR', sessions: 1, pageviews: 3, bounce_rate: 0, avg_session_duration: 180 },
      ])
    })

    it('"not performed" keeps the sessions without the event: 2 and 3, both bounces, with session 2\'s revenue', async () => {
      const body = (await answer(url('metrics', NOT_SIGNED_UP))) as { metrics: object }
      assert.deepEqual(body.metrics, {
        bounce_rate: 100,
        unique_visitors: 2,
        total_sessions: 2,
        avg_session_duration: 300,
        total_screen_views: 2,
        views_per_session: 1,
        total_revenue: 500,
      })
      const pages = (await answer(url('pages', NOT_SIGNED_UP))) as { path: string; sessions: number; pageviews: number }[]
      assert.deepEqual(
        pages.map(({ path, sessions, pageviews }) => ({ path, sessions, pageviews })),
        [
          { path: '/', sessions: 1, pageviews: 1 },
          { path: '/blog', sessions: 1, pageviews: 1 },
        ],
      )
    })

    it('counts every view of a kept session, where the flat event filter counts only the matching ones', async () => {
      const performedPricing = { and: [{ performed: { filters: [{ name: 'path', operator: 'is', value: ['/pricing'] }] } }] }
      const tree = (await answer(url('metrics', performedPricing))) as { metrics: { total_sessions: number; total_screen_views: number } }
      const flat = await request(h.app)
        .get(url('metrics', [{ name: 'path', operator: 'is', value: ['/pricing'] }]))
        .set(auth)
      assert.deepEqual([tree.metrics.total_sessions, tree.metrics.total_screen_views], [1, 2])
      assert.deepEqual([flat.body.metrics.total_sessions, flat.body.metrics.total_screen_views], [1, 1])
    })

    it('paths take trees: the sequences of the sessions kept', async () => {
      const res = await request(h.app).get(url('paths', NOT_SIGNED_UP)).set(auth)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.deepEqual(res.body, {
        sessions: 2,
        steps: [
          {
            step: 1,
            nodes: [
              { label: '/', sessions: 1, exits: 1 },
              { label: '/blog', sessions: 1, exits: 1 },
            ],
          },
        ],
        links: [],
      })
    })

    it('a malformed tree is a 400 listing every problem at the path of its node', async () => {
      const bad = {
        or: [
          { name: 'path', operator: 'is', value: ['/'] },
          { not: { performed: { name: 7, filters: [{ name: 'country', operator: 'is', value: ['DE'] }] } } },
          { and: [] },
          { and: [{ or: [{ not: { and: [{ or: [SIGNED_UP] }] } }] }] },
          { performed: { name: 'signup', when: 'today' } },
          'country',
        ],
      }
      const res = await request(h.app).get(url('metrics', bad)).set(auth)
      assert.equal(res.status, 400)
      const issues = (res.body.details.issues as { path: (string | number)[]; message: string }[]).map((issue) => issue.path.join('.'))
      assert.deepEqual(issues, [
        'filters.or.0.name',
        'filters.or.1.not.performed.name',
        'filters.or.1.not.performed.filters.0.name',
        'filters.or.2.and',
        'filters.or.3.and.0.or.0.not',
        'filters.or.4.performed.when',
        'filters.or.5',
      ])
      assert.match(res.body.details.issues[1].message, /^filters\.or\[1\]\.not\.performed\.name: /)
    })

    it("caps a tree before anything runs: leaves and the request's regex patterns", async () => {
      const leaves = {
        or: Array.from({ length: 26 }, () => ({
          performed: { name: 'signup', filters: [{ name: 'path', operator: 'contains', value: ['a'] }] },
        })),
      }
      const regex = {
        and: [
          { name: 'country', operator: 'regex', value: Array.from({ length: 12 }, (_, i) => `^${i}`) },
          { performed: { filters: [{ name: 'path', operator: 'regex', value: Array.from({ length: 9 }, (_, i) => `/${i}`) }] } },
        ],
      }
      for (const [tree, message] of [
        [leaves, /at most 50 leaves.*holds 52/],
        [regex, /at most 20 regex patterns.*holds 21 patterns/],
      ] as const) {
        const res = await request(h.app).get(url('metrics', tree)).set(auth)
        assert.equal(res.status, 400)
        assert.match(res.body.details.issues.map((issue: { message: string }) => issue.message).join('\n'), message)
      }
    })
  })

  describe('random trees against the reference model', () => {
    const SEED = Number(process.env.QUARRY_TREE_SEED ?? 20261127)
    const QUERIES = Number(process.env.QUARRY_TREE_QUERIES ?? 160)
    const PROJECTS = [
      { id: 'tree-berlin', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 8, sessions: 300 },
      { id: 'tree-ny', timezone: 'America/New_York', from: new Date('2024-03-05T00:00:00Z'), days: 8, sessions: 300 },
    ]
    const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu']
    const RESOURCES = ['metrics', 'metrics', 'pages', 'paths', 'pages/entry_exit', 'sessions', ...Object.keys(REGISTRY_DIMENSIONS)]
    let h: Harness
    let auth: Record<string, string>
    const events = new Map<string, RawEvent[]>()

    const sessionLeaf = (random: Random): object => {
      const place = random.pick(CHOICES.places)
      return random.pick([
        () => ({ name: 'country', operator: random.pick(['is', 'isNot']), value: [place.country] }),
        () => ({ name: 'device', operator: 'is', value: [random.pick(CHOICES.devices).device] }),
        () => ({ name: 'referrer_name', operator: random.pick(['isNull', 'isNotNull']) }),
        () => ({ name: 'browser', operator: 'startsWith', value: [random.pick(['ch', 'SAF'])] }),
        () => ({ name: 'os_version', operator: 'regex', value: [random.pick(['^1[67]', '\\.'])] }),
        () => ({
          name: 'entry_path',
          operator: random.pick(['contains', 'doesNotContain']),
          value: [random.pick(['blog', 'DOCS', 'über'])],
        }),
        () => ({ name: 'utm_source', operator: 'contains', value: ['news', 'partner'] }),
      ])()
    }
    const performedLeaf = (random: Random): object => {
      const filters = random.pick([
        [],
        [{ name: 'path', operator: random.pick(['contains', 'startsWith']), value: [random.pick(['blog', '/docs', 'pricing'])] }],
        [{ name: 'properties.price', operator: random.pick(['gt', 'lt']), value: [random.pick([5, 12.5, 100])] }],
        [
          { name: 'properties.plan', operator: 'is', value: ['pro'] },
          { name: 'title', operator: 'isNotNull' },
        ],
      ])
      const name = random.chance(0.7) ? { name: random.pick(['screen_view', ...CHOICES.customEvents]) } : {}
      return { performed: { ...name, ...(filters.length || random.chance(0.5) ? { filters } : {}) } }
    }
    /** A node `depth` combinators down: deeper nodes are more often leaves, and none passes depth 4. */
    const randomTree = (random: Random, depth = 0): object => {
      if (depth === 4 || (depth > 0 && random.chance(0.25 + depth * 0.15)))
        return random.chance(0.5) ? sessionLeaf(random) : performedLeaf(random)
      const kind = random.pick(['and', 'or', 'not'])
      if (kind === 'not') return { not: randomTree(random, depth + 1) }
      return { [kind]: Array.from({ length: random.int(1, 3) }, () => randomTree(random, depth + 1)) }
    }

    before(async () => {
      h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
      const random = new Random(SEED)
      for (const project of PROJECTS) {
        await createProject(h.engine, { id: project.id, timezone: project.timezone })
        const raw = randomEvents(SEED + project.sessions, project)
        events.set(project.id, raw)
        const shuffled = [...raw].sort(() => random.next() - 0.5)
        for (let batch = 0; batch < 3; batch += 1)
          await insertRawEvents(
            h.engine,
            shuffled.filter((_, index) => index % 3 === batch),
            project.id,
          )
      }
      // Most days compacted (the settled rows answer), the ones after the clock's last requests regrouped.
      await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date('2024-03-30T00:00:00Z') })
      auth = await rootHeaders(h.engine)
    })
    after(() => h.close())

    it(`agrees on ${QUERIES} random trees (seed ${SEED})`, async () => {
      const random = new Random(SEED)
      let nonEmpty = 0
      for (let n = 0; n < QUERIES; n += 1) {
        const project = random.pick(PROJECTS)
        const resource = random.pick(RESOURCES)
        const start = new Date(project.from.getTime() + random.int(0, project.days - 1) * 86_400_000)
        const now = new Date(start.getTime() + random.int(1, 7) * 86_400_000 + random.int(0, 86_399_999))
        const query: Record<string, string> = { startDate: start.toISOString().slice(0, 10), filters: JSON.stringify(randomTree(random)) }
        if (random.chance(0.8)) query.endDate = new Date(start.getTime() + random.int(1, 5) * 86_400_000).toISOString().slice(0, 10)
        if (random.chance(0.6)) query.timezone = random.pick(ZONES)
        if (resource !== 'metrics' && resource !== 'paths' && random.chance(0.5)) query.limit = String(random.int(3, 20))
        if (resource === 'pages/entry_exit') query.mode = random.pick(['entry', 'exit'])
        // The sessions list in Quarry's shape, which the model answers.
        const path = `/insights/${project.id}/${resource}?${new URLSearchParams(query)}${resource === 'sessions' ? '&detail=true' : ''}`
        const projectEvents = events.get(project.id) as RawEvent[]
        const expected =
          resource === 'paths'
            ? answerBehaviour({ events: projectEvents, projectTimezone: project.timezone, resource, query, now })
            : resource === 'sessions'
              ? sessionsPage(listSessions({ events: projectEvents, projectTimezone: project.timezone, query, now }), query)
              : answerInsights({ events: projectEvents, projectTimezone: project.timezone, resource, query, now })
        h.now = now
        const res = await request(h.app).get(path).set(auth)
        const replay = `request #${n}: now=${now.toISOString()} GET ${path}`
        assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
        if (expected.status === 200 && resource === 'sessions') assert.deepEqual(res.body.data, expected.body, replay)
        else if (expected.status === 200) assert.deepEqual(res.body, expected.body, replay)
        if (/"(sessions|total_sessions)":[1-9]|"screenViews"/.test(JSON.stringify(res.body))) nonEmpty += 1
      }
      assert.ok(nonEmpty > QUERIES / 3, `most answers should have data: ${nonEmpty} of ${QUERIES}`)
    })
  })
})
