// Randomized differential test of the behaviour questions: seeded random funnel, retention and paths
// requests over randomized data, across time zones and filters, answered by the gateway and by the
// reference model, must agree exactly. A failure prints the request to replay.
import assert from 'node:assert/strict'
import { request } from '../support/openapi-request'
import { createProject } from '../../server/admin/control'
import { funnel, type FunnelEngine } from '../../queries/behaviour/funnel'
import { answerBehaviour } from '../reference/behaviour'
import type { RawEvent } from '../reference/model'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 20240401)
const QUERIES = Number(process.env.QUARRY_BEHAVIOUR_QUERIES ?? 150)

const PROJECTS = [
  { id: 'flow-berlin', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 12, sessions: 400 },
  { id: 'flow-ny', timezone: 'America/New_York', from: new Date('2024-03-05T00:00:00Z'), days: 12, sessions: 300 },
]
/**
 * A project of a year, for daily retention over a window of more days than one return word holds (255
 * periods): a visitor's returns then fall in two words, and a late cohort's shift takes bits from both.
 * Random sessions over the year, and visitors who first come after day 230 and return within 20 days.
 */
const YEAR = { id: 'flow-year', timezone: 'Europe/Berlin', from: new Date('2024-01-01T00:00:00Z'), days: 330, sessions: 120 }
const DAY_MS = 86_400_000

function yearEvents(): RawEvent[] {
  const random = new Random(SEED + 1)
  const late = Array.from({ length: 20 }, (_, visitor) => {
    const first = YEAR.from.getTime() + (230 + visitor * 3) * DAY_MS + random.int(0, DAY_MS - 1)
    const times = [first, ...Array.from({ length: random.int(1, 3) }, () => first + random.int(1, 20) * DAY_MS + random.int(0, 3_600_000))]
    return times.map(
      (time, session): RawEvent => ({
        id: random.uuid(),
        name: 'screen_view',
        device_id: `late-${visitor}`,
        session_id: `late-${visitor}-${session}`,
        created_at: new Date(time).toISOString(),
        path: '/',
      }),
    )
  })
  return [...randomEvents(SEED + YEAR.sessions, YEAR), ...late.flat()]
}
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu']
const NAMES = ['screen_view', 'add_to_cart', 'signup', 'purchase', 'session_start', '*']

type FilterSpec = { name: string; operator: string; value?: (string | number)[] }

function eventFilter(random: Random): FilterSpec {
  const makers: (() => FilterSpec)[] = [
    () => ({
      name: 'path',
      operator: random.pick(['contains', 'doesNotContain', 'is']),
      value: [random.pick(['blog', '/pricing', 'DOCS', '/'])],
    }),
    () => ({ name: 'country', operator: random.pick(['is', 'isNot']), value: [random.pick(CHOICES.places).country] }),
    () => ({ name: 'properties.plan', operator: random.pick(['is', 'isNot']), value: [random.pick(CHOICES.plans.filter(Boolean))] }),
    () => ({ name: 'properties.price', operator: random.pick(['gt', 'lte']), value: [random.pick([5, 12.5, 100])] }),
    () => ({ name: 'browser', operator: 'startsWith', value: [random.pick(['ch', 'SAF'])] }),
    () => ({ name: 'origin', operator: 'is', value: [random.pick(CHOICES.origins)] }),
  ]
  return random.pick(makers)()
}

function sessionFilter(random: Random): FilterSpec {
  const makers: (() => FilterSpec)[] = [
    () => ({ name: 'entry_path', operator: 'endsWith', value: [random.pick(['/', 'a', 'C'])] }),
    () => ({ name: 'referrer_type', operator: 'is', value: [random.pick(['search', 'social', 'link'])] }),
    () => ({ name: 'device', operator: 'is', value: [random.pick(CHOICES.devices).device] }),
    () => ({ name: 'name', operator: 'is', value: [random.pick(['purchase', 'add_to_cart'])] }),
    () => eventFilter(random),
  ]
  return random.pick(makers)()
}

const filtersOf = (random: Random, make: (random: Random) => FilterSpec) =>
  JSON.stringify(Array.from({ length: random.pick([1, 1, 2]) }, () => make(random)))

function randomStep(random: Random, name: string = random.pick(NAMES)): string {
  if (random.chance(0.5)) return name
  return JSON.stringify({ name, ...(random.chance(0.7) ? { filters: [eventFilter(random)] } : {}) })
}

/**
 * A funnel's steps: half the time drawn freely, mostly overlapping (the fold answers); else each of its
 * own event, none `*`, which windowFunnel answers (`entries` without a breakdown, `window` with one).
 */
function randomFunnelSteps(random: Random): string[] {
  const count = random.int(2, 4)
  if (random.chance(0.5)) return Array.from({ length: count }, () => randomStep(random))
  const names = NAMES.filter((name) => name !== '*')
  for (let i = names.length - 1; i > 0; i -= 1) {
    const j = random.int(0, i)
    ;[names[i], names[j]] = [names[j], names[i]]
  }
  return names.slice(0, count).map((name) => randomStep(random, name))
}

function randomRequest(random: Random, project: (typeof PROJECTS)[number]) {
  const span = project.days * 86_400_000
  const now = new Date(project.from.getTime() + random.int(3 * 86_400_000, span + 10 * 86_400_000))
  const start = new Date(project.from.getTime() + random.int(-86_400_000, span - 86_400_000))
  const end = new Date(start.getTime() + random.int(6 * 3_600_000, 9 * 86_400_000))
  const query: Record<string, string | string[]> = {
    startDate: random.chance(0.5) ? start.toISOString().slice(0, 10) : `${start.toISOString().slice(0, 19)}Z`,
    endDate: end.toISOString().slice(0, 10),
  }
  if (random.chance(0.4)) query.timezone = random.pick(ZONES)
  const resource = random.pick(['funnel', 'retention', 'paths'])
  if (resource === 'funnel') {
    const steps = randomFunnelSteps(random)
    query.steps = random.chance(0.5) ? steps : JSON.stringify(steps.map((step) => (step.startsWith('{') ? JSON.parse(step) : step)))
    if (random.chance(0.7)) query.windowHours = String(random.pick([1, 2, 24, 72]))
    if (random.chance(0.5)) query.groupBy = 'profile_id'
    if (random.chance(0.4)) query.breakdown = random.pick(['country', 'path', 'properties.plan', 'browser', 'name'])
    if (random.chance(0.3)) query.breakdownLimit = String(random.int(1, 4))
    if (random.chance(0.3)) query.filters = filtersOf(random, eventFilter)
  } else if (resource === 'retention') {
    if (random.chance(0.6)) query.startEvent = randomStep(random)
    if (random.chance(0.6)) query.returnEvent = randomStep(random)
    query.period = random.pick(['day', 'week', 'month'])
    query.periods = String(random.int(1, 6))
    if (random.chance(0.5)) query.criteria = 'on_or_after'
    if (random.chance(0.3)) query.filters = filtersOf(random, eventFilter)
  } else {
    if (random.chance(0.4)) query.node = 'event'
    if (random.chance(0.4)) query.start = randomStep(random)
    query.steps = String(random.int(2, 5))
    query.limit = String(random.int(1, 6))
    if (random.chance(0.4)) query.filters = filtersOf(random, sessionFilter)
  }
  return { resource, query, now }
}

function urlOf(projectId: string, resource: string, query: Record<string, string | string[]>): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) for (const item of Array.isArray(value) ? value : [value]) search.append(key, item)
  // Retention as Quarry's cohort table, which the model answers.
  if (resource === 'retention') search.append('detail', 'true')
  return `/insights/${projectId}/${resource}?${search}`
}

describe('behaviour questions: gateway vs reference model (randomized)', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  const events = new Map<string, RawEvent[]>()

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    for (const project of [...PROJECTS, YEAR]) {
      await createProject(h.engine, { id: project.id, timezone: project.timezone })
      const raw = project === YEAR ? yearEvents() : randomEvents(SEED + project.sessions, project)
      events.set(project.id, raw)
      await insertRawEvents(h.engine, raw, project.id)
    }
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  it(`agrees on ${QUERIES} random requests (seed ${SEED})`, async () => {
    const random = new Random(SEED)
    const counts = { ok: 0, invalid: 0, nonEmpty: 0 }
    const engines: Record<FunnelEngine, number> = { entries: 0, window: 0, fold: 0 }
    for (let n = 0; n < QUERIES; n += 1) {
      const project = random.pick(PROJECTS)
      const { resource, query, now } = randomRequest(random, project)
      const url = urlOf(project.id, resource, query)
      const replay = `request #${n}: now=${now.toISOString()} GET ${url}`
      const expected = answerBehaviour({
        events: events.get(project.id) as RawEvent[],
        projectTimezone: project.timezone,
        resource,
        query,
        now,
      })
      h.now = now
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      if (expected.status !== 200) {
        counts.invalid += 1
        continue
      }
      assert.deepEqual(res.body, expected.body, replay)
      counts.ok += 1
      if (resource === 'funnel') {
        const scope = { project: { id: project.id, name: project.id, timezone: project.timezone }, now, sessionLookbackMs: 0 }
        engines[funnel.plan(funnel.parse(query, scope)).engine] += 1
      }
      if (/"(users|size|sessions)":[1-9]/.test(JSON.stringify(expected.body))) counts.nonEmpty += 1
    }
    assert.ok(counts.nonEmpty > QUERIES / 2, `most answers should have data: ${JSON.stringify(counts)}`)
    assert.ok(
      Object.values(engines).every((answered) => answered >= QUERIES / 30),
      `each funnel engine should answer several requests: ${JSON.stringify(engines)}`,
    )
  })

  it('agrees on daily retention over windows of more days than one return word holds', async () => {
    const now = new Date('2025-01-01T00:00:00Z')
    h.now = now
    const requests: Record<string, string>[] = [
      { startDate: '2024-01-01', endDate: '2024-11-20', period: 'day', periods: '24' },
      { startDate: '2024-01-10', endDate: '2024-11-25', period: 'day', periods: '20', criteria: 'on_or_after' },
      {
        startDate: '2024-02-01',
        endDate: '2024-11-26',
        period: 'day',
        periods: '12',
        timezone: 'Asia/Kathmandu',
        returnEvent: 'screen_view',
      },
    ]
    for (const query of requests) {
      const url = urlOf(YEAR.id, 'retention', query)
      const expected = answerBehaviour({
        events: events.get(YEAR.id) as RawEvent[],
        projectTimezone: YEAR.timezone,
        resource: 'retention',
        query,
        now,
      })
      assert.equal(expected.status, 200, url)
      const cohorts = (expected.body as { cohorts: { values: (number | null)[] }[] }).cohorts
      // Returns past the first word's 255 periods, so the second word is read.
      assert.ok(
        cohorts.some((cohort, index) => cohort.values.some((value, k) => k > 0 && index + k >= 255 && (value ?? 0) > 0)),
        `no return past period 255: ${url}`,
      )
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, 200, `${url}\n${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, expected.body, url)
    }
  })

  it('agrees on retention whose periods read fill one UInt64 word, pass it, and fill it weekly over the year', async () => {
    const now = new Date('2025-01-01T00:00:00Z')
    h.now = now
    // 52 daily cohorts and 11 periods read 63 periods (one UInt64 word); 20 periods read 72 (one UInt256),
    // with returns past the 64th. `lateReturn`: a period, from the window's first, that some return falls in.
    const requests: { query: Record<string, string>; lateReturn: number }[] = [
      { query: { startDate: '2024-08-20', endDate: '2024-10-10', period: 'day', periods: '11' }, lateReturn: 50 },
      { query: { startDate: '2024-08-20', endDate: '2024-10-10', period: 'day', periods: '20', criteria: 'on_or_after' }, lateReturn: 66 },
      { query: { startDate: '2024-01-01', endDate: '2024-11-24', period: 'week', periods: '8' }, lateReturn: 46 },
    ]
    for (const { query, lateReturn } of requests) {
      const url = urlOf(YEAR.id, 'retention', query)
      const expected = answerBehaviour({
        events: events.get(YEAR.id) as RawEvent[],
        projectTimezone: YEAR.timezone,
        resource: 'retention',
        query,
        now,
      })
      assert.equal(expected.status, 200, url)
      const cohorts = (expected.body as { cohorts: { values: (number | null)[] }[] }).cohorts
      assert.ok(
        cohorts.some((cohort, index) => (cohort.values[lateReturn - index] ?? 0) > 0 && lateReturn > index),
        `no return in period ${lateReturn}: ${url}`,
      )
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, 200, `${url}\n${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, expected.body, url)
    }
  })
})
