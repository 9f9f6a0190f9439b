// OpenPanel's shapes on the routes Quarry shares with it, against the reference model on random events:
// the weekly retention series and OpenPanel's cohort rows over random windows, zones, filters and periods,
// the discovery routes under either parameter name, and the sessions list, each in OpenPanel's shape or with
// `detail=true` in Quarry's, and the requests a route refuses.
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import { answerBehaviour } from '../reference/behaviour'
import type { DiscoveryResource } from '../reference/discovery'
import { listSessions, type RawEvent } from '../reference/model'
import { discoveryShape, retentionCohort, sessionsShape, userFlow, weeklyRetention } from '../reference/openpanel-shapes'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 20241202)
const QUERIES = Number(process.env.QUARRY_DIFF_QUERIES ?? 240)
/** Ten weeks of sessions, so series and cohorts span many weeks, a clock change among them. */
const PROJECT = { id: 'op-shapes', timezone: 'Europe/Berlin', from: new Date('2024-02-19T00:00:00Z'), days: 70, sessions: 700 }
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu']
const ROUTES = [
  'retention',
  'retention/cohort',
  'events/names',
  'events/properties',
  'events/property_values',
  'sessions',
  'user_flow',
] as const
type Route = (typeof ROUTES)[number]

function randomFilters(random: Random): string | undefined {
  const makers = [
    () => ({ name: 'country', operator: random.pick(['is', 'isNot']), value: [random.pick(CHOICES.places).country] }),
    () => ({ name: 'path', operator: random.pick(['contains', 'doesNotContain']), value: [random.pick(['blog', 'docs'])] }),
    () => ({ name: 'name', operator: 'is', value: [random.pick(['screen_view', ...CHOICES.customEvents])] }),
  ]
  const count = random.pick([0, 0, 1, 2])
  return count ? JSON.stringify(Array.from({ length: count }, () => random.pick(makers)())) : undefined
}

function randomRequest(random: Random): { route: Route; query: Record<string, string>; now: Date } {
  const span = PROJECT.days * 86_400_000
  const route = random.pick(ROUTES)
  const now = new Date(PROJECT.from.getTime() + random.int(7, PROJECT.days + 14) * 86_400_000 + random.int(0, 86_399_999))
  const query: Record<string, string> = {}
  if (random.chance(0.3)) query.range = random.pick(['7d', '30d', '3m', 'lastMonth', 'monthToDate'])
  else {
    const start = new Date(PROJECT.from.getTime() + random.int(-7, PROJECT.days) * 86_400_000)
    const days = route.startsWith('retention') || route === 'user_flow' ? random.int(0, 60) : random.int(0, 6)
    query.startDate = start.toISOString().slice(0, 10)
    query.endDate = new Date(Math.min(start.getTime() + days * 86_400_000, PROJECT.from.getTime() + span)).toISOString().slice(0, 10)
  }
  if (random.chance(0.4)) query.timezone = random.pick(ZONES)
  const detailed = random.chance(0.3)
  if (detailed) query.detail = 'true'
  if (route === 'retention' || route === 'retention/cohort') {
    const filters = randomFilters(random)
    if (filters) query.filters = filters
  }
  if (route === 'retention/cohort' || (route === 'retention' && detailed)) {
    if (random.chance(0.6)) query.periods = String(random.int(1, 12))
    if (random.chance(0.4)) query.criteria = random.pick(['on', 'on_or_after'])
    if (random.chance(0.3)) query.returnEvent = random.pick(CHOICES.customEvents)
  }
  if (route.startsWith('events/')) {
    // Now and then no window: OpenPanel's shape then reads the whole history, Quarry's its default days.
    if (random.chance(0.2)) for (const name of ['range', 'startDate', 'endDate']) delete query[name]
    if (route !== 'events/names' && random.chance(0.5))
      query[random.pick(['event', 'eventName'])] = random.pick(['screen_view', ...CHOICES.customEvents])
    if (route === 'events/property_values') query[random.pick(['key', 'propertyKey'])] = random.pick(['price', 'plan'])
    if (random.chance(0.5)) query.limit = String(random.int(1, 4))
  }
  if (route === 'sessions' && random.chance(0.8)) query.limit = String(random.int(1, 30))
  if (route === 'user_flow') {
    delete query.detail
    const names = ['screen_view', 'session_start', ...CHOICES.customEvents]
    if (random.chance(0.8)) query.mode = random.pick(['after', 'before', 'before', 'between', 'between'])
    // Before a custom event or between a first event and a custom one, most flows hold several nodes.
    const startNames = query.mode === 'before' ? CHOICES.customEvents : query.mode === 'between' ? ['screen_view', 'session_start'] : names
    if (random.chance(0.95)) query.startEvent = random.pick(random.chance(0.8) ? startNames : names)
    if (random.chance(0.5)) query.steps = String(random.int(2, 6))
    if (random.chance(0.5)) query.limit = String(random.int(1, 5))
    // endEvent with between, now and then without it or with another mode (a 400).
    if (random.chance(query.mode === 'between' ? 0.9 : 0.05))
      query.endEvent = random.pick(random.chance(0.8) ? CHOICES.customEvents : names)
    if (random.chance(0.2)) query.include = random.pick(names)
    if (random.chance(0.2)) query.exclude = random.pick(names)
    const filters = randomFilters(random)
    if (filters) query.filters = filters
  }
  // Now and then a request the route refuses: Quarry's cohort parameter without detail, two names that differ.
  if (route === 'retention' && !detailed && random.chance(0.1)) query.period = 'week'
  if (route === 'events/property_values' && random.chance(0.1)) Object.assign(query, { key: 'price', propertyKey: 'plan' })
  return { route, query, now }
}

/** The model's status and body of a request. */
function modelAnswer(events: RawEvent[], route: Route, query: Record<string, string>, now: Date): { status: number; body: unknown } {
  const context = { events, projectTimezone: PROJECT.timezone, query, now }
  const { detail, ...rest } = query
  switch (route) {
    case 'retention':
      return detail === 'true'
        ? answerBehaviour({ ...context, query: rest, resource: 'retention' })
        : weeklyRetention({ ...context, query: rest })
    case 'retention/cohort':
      return detail === 'true'
        ? answerBehaviour({
            ...context,
            resource: 'retention',
            query: { period: 'week', criteria: 'on_or_after', periods: '12', range: '3m', ...rest },
          })
        : retentionCohort({ ...context, query: rest })
    case 'user_flow':
      return userFlow(context)
    case 'sessions': {
      // Quarry's page with detail=true: its sessions are the model's list (test/integration/sessions-list.test.ts pages through it).
      const listed = detail === 'true' ? listSessions({ ...context, query: rest }) : sessionsShape({ ...context, query: rest })
      return listed === null ? { status: 400, body: null } : { status: 200, body: listed.slice(0, Number(rest.limit ?? 20)) }
    }
    default:
      return discoveryShape({ ...context, resource: route.slice('events/'.length) as DiscoveryResource })
  }
}

describe("OpenPanel's shapes vs the reference model (randomized)", function () {
  this.timeout(120_000)
  let h: Harness
  let auth: Record<string, string>
  const events = randomEvents(SEED, PROJECT)

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    await createProject(h.engine, { id: PROJECT.id, timezone: PROJECT.timezone })
    await insertRawEvents(h.engine, events, PROJECT.id)
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  it(`agrees on ${QUERIES} random requests (seed ${SEED})`, async () => {
    const random = new Random(SEED)
    const seen = { ok: 0, refused: 0, series: 0, cohorts: 0, flows: 0, before: 0, between: 0, history: 0 }
    for (let n = 0; n < QUERIES; n += 1) {
      const { route, query, now } = randomRequest(random)
      const url = `/insights/${PROJECT.id}/${route}?${new URLSearchParams(query)}`
      const replay = `request #${n}: now=${now.toISOString()} GET ${url}`
      const expected = modelAnswer(events, route, query, now)
      h.now = now
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      if (expected.status !== 200) {
        seen.refused += 1
        continue
      }
      assert.deepEqual(route === 'sessions' && query.detail === 'true' ? res.body.data : res.body, expected.body, replay)
      seen.ok += 1
      if (route === 'retention' && query.detail !== 'true' && (res.body as unknown[]).length > 2) seen.series += 1
      if (route === 'retention/cohort' && query.detail !== 'true' && (res.body as unknown[]).length > 2) seen.cohorts += 1
      if (route.startsWith('events/') && query.detail !== 'true' && !query.startDate && !query.range) seen.history += 1
      if (route === 'user_flow' && res.body.link_count > 0) seen.flows += 1
      if (route === 'user_flow' && res.body.link_count > 0 && (query.mode === 'before' || query.mode === 'between')) seen[query.mode] += 1
    }
    assert.ok(seen.refused > 0 && seen.ok > QUERIES / 2, JSON.stringify(seen))
    assert.ok(
      seen.series > 5 && seen.cohorts > 5 && seen.flows > 5,
      `most series and cohort answers span several weeks: ${JSON.stringify(seen)}`,
    )
    assert.ok(seen.before > 1 && seen.between > 1, `flows before and between startEvent are met: ${JSON.stringify(seen)}`)
    assert.ok(seen.history > 3, `OpenPanel's lists over the whole history are met: ${JSON.stringify(seen)}`)
  })
})
