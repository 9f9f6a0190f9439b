// Randomized differential test of `compare=previous|year`: seeded random questions to every route that
// compares (metrics, pages, entry and exit pages, every breakdown, event names, funnels), answered by the
// gateway and by the reference model (test/reference/compare.ts), must agree exactly. Berlin's windows
// sit just after its change to summer time (31 March 2024), so `previous` spans it; New York has data a
// year apart, so `year` compares windows around its changes (10 March 2024, 12 March 2023).
import assert from 'node:assert/strict'
import { DIMENSIONS as REGISTRY_DIMENSIONS } from '../../queries/core/registry'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createProject } from '../../server/admin/control'
import { answerCompared } from '../reference/compare'
import { answerInsights, type RawEvent } from '../reference/model'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 20240401)
const QUERIES = Number(process.env.QUARRY_COMPARE_QUERIES ?? 60)
const DAY = 86_400_000

/** Each project's data: spans of days, each with its own sessions. */
const PROJECTS = [
  {
    id: 'cmp-berlin',
    timezone: 'Europe/Berlin',
    spans: [{ from: new Date('2024-03-18T00:00:00Z'), days: 24, sessions: 360 }],
    windows: { from: new Date('2024-03-31T00:00:00Z'), days: 10 },
    modes: ['previous', 'previous', 'year'],
  },
  {
    id: 'cmp-ny',
    timezone: 'America/New_York',
    spans: [
      { from: new Date('2023-03-01T00:00:00Z'), days: 18, sessions: 220 },
      { from: new Date('2024-03-01T00:00:00Z'), days: 18, sessions: 220 },
    ],
    windows: { from: new Date('2024-03-04T00:00:00Z'), days: 12 },
    modes: ['year', 'year', 'previous'],
  },
]
type Project = (typeof PROJECTS)[number]
const DIMENSIONS = Object.keys(REGISTRY_DIMENSIONS)
const NAMES = ['screen_view', 'add_to_cart', 'signup', 'purchase', 'session_start']

/**
 * New York, 12 March 2023 03:10 EDT (07:10Z): just after that night's skipped hour (02:00 to 03:00). A window
 * starting at 02:30 on 12 March 2024 compares, a year before, from 03:30 (02:30 moved forward by the gap),
 * which leaves this session out; from 03:00 it would count.
 */
const AFTER_GAP: RawEvent[] = [
  {
    id: '0a000000-0000-4000-8000-000000000001',
    name: 'screen_view',
    device_id: 'gap',
    session_id: 'gap',
    created_at: '2023-03-12T07:10:00.000Z',
    path: '/',
  },
  {
    id: '0a000000-0000-4000-8000-000000000002',
    name: 'screen_view',
    device_id: 'gap',
    session_id: 'gap',
    created_at: '2023-03-12T07:11:00.000Z',
    path: '/docs',
  },
]

type FilterSpec = { name: string; operator: string; value?: (string | number)[] }

function randomFilter(random: Random): FilterSpec {
  const makers: (() => FilterSpec)[] = [
    () => ({ name: 'country', operator: random.pick(['is', 'isNot']), value: [random.pick(CHOICES.places).country] }),
    () => ({ name: 'device', operator: 'is', value: [random.pick(CHOICES.devices).device] }),
    () => ({ name: 'referrer_type', operator: 'is', value: [random.pick(['search', 'social', 'link'])] }),
    () => ({ name: 'path', operator: random.pick(['contains', 'startsWith']), value: [random.pick(['blog', 'DOCS', '/'])] }),
    () => ({ name: 'properties.plan', operator: random.pick(['is', 'isNot']), value: [random.pick(CHOICES.plans.filter(Boolean))] }),
  ]
  return random.pick(makers)()
}

/** A window inside the project's windows: whole days, ISO instants or a preset range ending at now. */
function randomWindow(random: Random, project: Project, now: Date): Record<string, string> {
  const roll = random.next()
  if (roll < 0.25) return { range: random.pick(['7d', 'today', 'yesterday', 'last24h']) }
  const start = new Date(project.windows.from.getTime() + random.int(0, project.windows.days - 1) * DAY)
  const end = new Date(start.getTime() + random.int(0, 6) * DAY)
  if (roll < 0.7) return { startDate: start.toISOString().slice(0, 10), endDate: end.toISOString().slice(0, 10) }
  const from = new Date(start.getTime() + random.int(0, DAY - 1))
  const to = new Date(Math.min(from.getTime() + random.int(3_600_000, 5 * DAY), now.getTime()))
  return to > from ? { startDate: from.toISOString(), endDate: to.toISOString() } : { startDate: from.toISOString() }
}

function randomQuestion(random: Random, project: Project) {
  const now = new Date(project.windows.from.getTime() + random.int(1, project.windows.days + 2) * DAY + random.int(0, DAY - 1))
  const resource = random.pick([
    'metrics',
    'metrics',
    'pages',
    'pages/entry_exit',
    'events/names',
    'funnel',
    ...DIMENSIONS.slice(0, 6),
    random.pick(DIMENSIONS),
  ])
  const query: Record<string, string | string[]> = { ...randomWindow(random, project, now), compare: random.pick(project.modes) }
  if (resource === 'funnel') {
    query.steps = [random.pick(NAMES), random.pick(NAMES)]
    if (random.chance(0.5)) query.windowHours = String(random.pick([1, 24, 72]))
    if (random.chance(0.3)) query.breakdown = random.pick(['country', 'path'])
    return { resource, query, now }
  }
  if (resource !== 'events/names' && random.chance(0.4)) query.filters = JSON.stringify([randomFilter(random)])
  if (resource === 'events/names' && random.chance(0.3)) query.search = random.pick(['a', 'view'])
  if (resource === 'metrics') {
    if (random.chance(0.6)) query.interval = random.pick(['hour', 'day'])
  } else {
    if (random.chance(0.7)) query.limit = String(random.int(1, 8))
    if (random.chance(0.4)) query.cursor = String(random.int(1, 3))
  }
  if (resource === 'pages' && random.chance(0.5)) {
    query.sortBy = random.pick(['pageviews', 'bounce_rate', 'avg_duration'])
    if (random.chance(0.3)) query.search = random.pick(['blog', 'Home', 'docs'])
  }
  if (resource === 'pages/entry_exit') query.mode = random.pick(['entry', 'exit'])
  return { resource, query, now }
}

function urlOf(projectId: string, resource: string, query: Record<string, string | string[]>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) for (const item of Array.isArray(value) ? value : [value]) search.append(key, item)
  return `/insights/${projectId}/${resource}?${search}`
}

describe('compare: gateway vs reference model (randomized)', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  const events = new Map<string, RawEvent[]>()

  /** Asks the gateway and the reference, and requires the same status, body and Link header. */
  async function agree(project: Project, resource: string, query: Record<string, string | string[]>, now: Date, replay: string) {
    const expected = answerCompared({
      events: events.get(project.id) as RawEvent[],
      projectTimezone: project.timezone,
      resource,
      query,
      now,
    })
    h.now = now
    const res = await request(h.app)
      .get(urlOf(project.id, resource, query))
      .set(auth)
    assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body).slice(0, 600)}`)
    if (expected.status !== 200) return expected
    assert.deepEqual(res.body, expected.body, replay)
    assert.equal(Boolean(res.headers.link), expected.next, `${replay} (Link header)`)
    return expected
  }

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    const random = new Random(SEED)
    for (const project of PROJECTS) {
      await createProject(h.engine, { id: project.id, timezone: project.timezone })
      const raw = project.spans.flatMap((span, index) => randomEvents(SEED + index * 1000 + span.sessions, span))
      if (project.timezone === 'America/New_York') raw.push(...AFTER_GAP)
      events.set(project.id, raw)
      const shuffled = [...raw].sort(() => random.next() - 0.5)
      for (let b = 0; b < 3; b += 1) {
        await insertRawEvents(
          h.engine,
          shuffled.filter((_, index) => index % 3 === b),
          project.id,
        )
      }
    }
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date() })
    assert.ok(report.sessions > 0, JSON.stringify(report))
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  // The windows the brief of the feature names: Berlin's week after the change against the week that
  // holds it, New York's week against the same week a year before, which holds that year's change; by
  // day and by hour, on every route.
  it('agrees across a change of summer time, on every route', async () => {
    const cases = [
      { project: PROJECTS[0], query: { startDate: '2024-04-01', endDate: '2024-04-07', compare: 'previous' } },
      { project: PROJECTS[1], query: { startDate: '2024-03-08', endDate: '2024-03-14', compare: 'year' } },
    ]
    let withPrevious = 0
    for (const { project, query } of cases) {
      const now = new Date('2024-04-15T12:00:00Z')
      const asked: [string, Record<string, string | string[]>][] = [
        ['metrics', { ...query, interval: 'day' }],
        ['metrics', { ...query, interval: 'hour' }],
        ['pages', { ...query, limit: '20' }],
        ['pages/entry_exit', { ...query, mode: 'entry' }],
        ['pages/entry_exit', { ...query, mode: 'exit' }],
        ['events/names', query],
        ['funnel', { ...query, steps: ['screen_view', 'purchase'] }],
        ...DIMENSIONS.map((resource): [string, Record<string, string>] => [resource, query]),
      ]
      for (const [resource, q] of asked) {
        const expected = await agree(project, resource, q, now, `now=${now.toISOString()} GET ${urlOf(project.id, resource, q)}`)
        if (JSON.stringify(expected.body).includes('"previous":{')) withPrevious += 1
      }
    }
    assert.ok(withPrevious > 40, `${withPrevious} answers with a previous`)
  })

  it(`agrees on ${QUERIES} random questions (seed ${SEED})`, async () => {
    const random = new Random(SEED + 1)
    const counts = { ok: 0, invalid: 0, previous: 0, missing: 0 }
    for (let n = 0; n < QUERIES; n += 1) {
      const project = PROJECTS[n % PROJECTS.length]
      const { resource, query, now } = randomQuestion(random, project)
      const expected = await agree(
        project,
        resource,
        query,
        now,
        `question #${n}: now=${now.toISOString()} GET ${urlOf(project.id, resource, query)}`,
      )
      if (expected.status !== 200) {
        counts.invalid += 1
        continue
      }
      counts.ok += 1
      const text = JSON.stringify(expected.body)
      if (text.includes('"previous":{')) counts.previous += 1
      if (text.includes('"previous":null')) counts.missing += 1
    }
    assert.ok(counts.previous > QUERIES / 2 && counts.missing > 5, `most answers should compare with data: ${JSON.stringify(counts)}`)
  })

  // The same question without compare, then with each mode, then without again: the cache must keep them apart.
  it('answers a question with and without compare apart', async () => {
    const project = PROJECTS[0]
    const now = new Date('2024-04-15T12:00:00Z')
    const query = { startDate: '2024-04-02', endDate: '2024-04-04' }
    for (const resource of ['metrics', 'pages', 'country']) {
      for (const compare of [undefined, 'previous', 'year', undefined]) {
        const asked = compare === undefined ? query : { ...query, compare }
        const replay = `now=${now.toISOString()} GET ${urlOf(project.id, resource, asked)}`
        if (compare !== undefined) {
          await agree(project, resource, asked, now, replay)
          continue
        }
        const plain = answerInsights({
          events: events.get(project.id) as RawEvent[],
          projectTimezone: project.timezone,
          resource,
          query,
          now,
        })
        h.now = now
        const res = await request(h.app)
          .get(urlOf(project.id, resource, asked))
          .set(auth)
        assert.equal(res.status, 200, replay)
        assert.deepEqual(res.body, plain.body, replay)
      }
    }
  })

  // A page kept by `search` through its title now is compared with its views there, whatever its title there.
  // Berlin, 9 to 11 April: [2024-04-08T22:00Z, 2024-04-11T22:00Z); the 3 days before: [2024-04-05T22:00Z,
  // 2024-04-08T22:00Z). Each search counts the pages with data before that the same search there would miss.
  it('compares a page found by search whatever its title in the compared window', async () => {
    const project = PROJECTS[0]
    const now = new Date('2024-04-15T12:00:00Z')
    let missedThere = 0
    for (const search of ['docs', 'blog', 'home', 'pricing', 'über']) {
      const query = { startDate: '2024-04-09', endDate: '2024-04-11', search, limit: '20', compare: 'previous' }
      const expected = await agree(project, 'pages', query, now, `now=${now.toISOString()} GET ${urlOf(project.id, 'pages', query)}`)
      const searchedThere = answerInsights({
        events: events.get(project.id) as RawEvent[],
        projectTimezone: project.timezone,
        resource: 'pages',
        query: { startDate: '2024-04-05T22:00:00Z', endDate: '2024-04-08T22:00:00Z', search, limit: '1000' },
        now,
      }).body as { origin: string; path: string }[]
      const found = new Set(searchedThere.map((row) => JSON.stringify([row.origin, row.path])))
      const rows = expected.body as { origin: string; path: string; previous: unknown }[]
      missedThere += rows.filter((row) => row.previous !== null && !found.has(JSON.stringify([row.origin, row.path]))).length
    }
    assert.ok(missedThere > 0, 'some page compared has another title in the compared window')
  })

  it('moves a local time that does not exist a year before forward by the gap', async () => {
    const project = PROJECTS[1]
    const now = new Date('2024-04-15T12:00:00Z')
    const inGap = { startDate: '2024-03-12T02:30:00-04:00', endDate: '2024-03-13', compare: 'year' }
    for (const [resource, query] of [
      ['metrics', { ...inGap, interval: 'hour' }],
      ['pages', inGap],
      ['country', inGap],
    ] as const) {
      await agree(project, resource, query, now, `now=${now.toISOString()} GET ${urlOf(project.id, resource, query)}`)
    }
    // From 03:00 a year before, the session after the gap counts.
    const sessionsFrom = (startDate: string) =>
      (
        answerCompared({
          events: events.get(project.id) as RawEvent[],
          projectTimezone: project.timezone,
          resource: 'metrics',
          query: { ...inGap, startDate },
          now,
        }).body as { previous: { total_sessions: number } }
      ).previous.total_sessions
    assert.equal(sessionsFrom('2024-03-12T03:00:00-04:00'), sessionsFrom(inGap.startDate) + 1)
  })

  it('refuses an unknown compare, naming it', async () => {
    h.now = new Date('2024-04-15T12:00:00Z')
    const res = await request(h.app)
      .get(urlOf(PROJECTS[0].id, 'metrics', { range: '7d', compare: 'lastWeek' }))
      .set(auth)
    assert.equal(res.status, 400)
    assert.ok(
      res.body.details.issues.some((issue: { path: string[] }) => issue.path[0] === 'compare'),
      JSON.stringify(res.body),
    )
  })
})
