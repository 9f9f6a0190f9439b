// Randomized differential test of the discovery routes: seeded random requests (windows with bounds on
// days, hours, minutes and milliseconds, in zones a whole hour, half an hour and 45 minutes from UTC;
// searches, event names, keys, pages) over random events inserted in shuffled batches, answered by the
// gateway and by the reference model, must agree exactly. A failure prints the request to replay.
import assert from 'node:assert/strict'
import { request } from '../support/openapi-request'
import { createProject } from '../../server/admin/control'
import { answerDiscovery, DISCOVERY_RESOURCES } from '../reference/discovery'
import type { RawEvent } from '../reference/model'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 20240412)
const QUERIES = Number(process.env.QUARRY_DIFF_QUERIES ?? 300)

const PROJECTS = [
  { id: 'disc-kathmandu', timezone: 'Asia/Kathmandu', from: new Date('2024-03-20T00:00:00Z'), days: 10, sessions: 400 },
  { id: 'disc-berlin', timezone: 'Europe/Berlin', from: new Date('2024-03-25T00:00:00Z'), days: 10, sessions: 300 },
]
const PRESETS = ['30min', 'lastHour', 'last24h', 'today', 'yesterday', '7d', '30d', '3m', 'monthToDate', 'lastMonth', 'yearToDate', '12m']
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Asia/Kolkata', 'America/St_Johns']
/** Keys beyond the random events' price and plan: case, unicode, quotes, and values to search in. */
const EXTRA_KEYS = ['Source', 'ünï', "it's", 'query']
const EXTRA_VALUES = ['Google', 'google', 'Über', '"quoted"', '', 'x', 'GOOGLE ads', '产品']
const SEARCHES = ['', 'o', 'O', 'goo', 'ÜBER', 'ü', 'pro', '"', "'", 'pri', 'view', 'VIEW', '产', 'zzz', 'e']
const EVENT_NAMES = [...CHOICES.customEvents, 'screen_view', 'session_start', 'nothing_like_it']
const KEYS = ['price', 'plan', ...EXTRA_KEYS, 'absent']

/** The random events, with some extra properties on a third of them. */
function discoveryEvents(seed: number, project: (typeof PROJECTS)[number]): RawEvent[] {
  const random = new Random(seed + 7)
  return randomEvents(seed, project).map((event) => {
    if (!random.chance(0.35)) return event
    const extra = Object.fromEntries(EXTRA_KEYS.filter(() => random.chance(0.5)).map((key) => [key, random.pick(EXTRA_VALUES)]))
    return { ...event, properties: { ...event.properties, ...extra } }
  })
}

function isoWithOffset(date: Date, random: Random): string {
  const offsetMinutes = random.pick([0, 60, -300, 330, 345, -210])
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, random.pick([16, 19, 23]))
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

function randomRequest(random: Random, project: (typeof PROJECTS)[number]) {
  const span = project.days * 86_400_000
  const now = new Date(project.from.getTime() + random.int(0, span + 2 * 86_400_000) + random.int(0, 59_999))
  const resource = random.pick(DISCOVERY_RESOURCES)
  const query: Record<string, string> = {}
  if (random.chance(0.4)) {
    query.range = random.pick(PRESETS)
  } else {
    // Bounds anywhere: on days, hours, minutes or milliseconds, windows from minutes to days long.
    const start = new Date(project.from.getTime() + random.int(-86_400_000, span))
    const length = random.pick([random.int(60_000, 3_600_000), random.int(3_600_000, 86_400_000), random.int(86_400_000, 9 * 86_400_000)])
    const end = new Date(start.getTime() + length)
    query.startDate = random.chance(0.3) ? start.toISOString().slice(0, 10) : isoWithOffset(start, random)
    if (random.chance(0.85)) query.endDate = random.chance(0.3) ? end.toISOString().slice(0, 10) : isoWithOffset(end, random)
  }
  if (random.chance(0.4)) query.timezone = random.pick(ZONES)
  if (random.chance(0.4)) query.search = random.pick(SEARCHES)
  if (resource !== 'names' && random.chance(0.5)) query.event = random.pick(EVENT_NAMES)
  if (resource === 'property_values' && random.chance(0.97)) query.key = random.pick(KEYS)
  if (random.chance(0.7)) query.limit = String(random.int(1, 6))
  if (random.chance(0.5)) query.cursor = String(random.int(1, 4))
  // Now and then a request the route refuses: a parameter it does not take, a limit out of range.
  if (random.chance(0.03)) query.filters = '[]'
  if (random.chance(0.03)) query.limit = random.pick(['0', '1001', 'ten'])
  return { resource, query, now }
}

describe('discovery routes vs reference model (randomized)', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  const events = new Map<string, RawEvent[]>()

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    const random = new Random(SEED)
    // Merges stopped: every insert keeps its own summary rows, so answers must sum them.
    for (const table of ['event_names', 'event_property_keys', 'event_property_values'])
      await h.engine.client.command({ query: `SYSTEM STOP MERGES ${table}` })
    for (const project of PROJECTS) {
      await createProject(h.engine, { id: project.id, timezone: project.timezone })
      const raw = discoveryEvents(SEED + project.sessions, project)
      events.set(project.id, raw)
      // Several shuffled inserts: every bucket's counts arrive as several summary rows.
      const shuffled = [...raw].sort(() => random.next() - 0.5)
      for (let b = 0; b < 4; b += 1)
        await insertRawEvents(
          h.engine,
          shuffled.filter((_, index) => index % 4 === b),
          project.id,
        )
    }
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  it('stores buckets as several summary rows (the case worth testing)', async () => {
    const rows = await h.engine.client
      .query({
        query:
          'SELECT countIf(parts > 1) AS split, count() AS total FROM (SELECT count() AS parts FROM event_names GROUP BY project_id, span, bucket, name)',
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<{ split: number; total: number }>())
    assert.ok(rows[0].split > rows[0].total / 2, JSON.stringify(rows[0]))
  })

  it(`agrees on ${QUERIES} random requests (seed ${SEED})`, async () => {
    const random = new Random(SEED)
    const counts = { ok: 0, invalid: 0, nonEmpty: 0, paged: 0 }
    for (let n = 0; n < QUERIES; n += 1) {
      const project = random.pick(PROJECTS)
      const { resource, query, now } = randomRequest(random, project)
      const url = `/insights/${project.id}/events/${resource}?${new URLSearchParams(query)}`
      const replay = `request #${n}: now=${now.toISOString()} GET ${url}`
      const expected = answerDiscovery({
        events: events.get(project.id) as RawEvent[],
        projectTimezone: project.timezone,
        resource,
        query,
        now,
      })
      h.now = now
      // Quarry's rows, which the model answers.
      const res = await request(h.app).get(`${url}&detail=true`).set(auth)
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      if (expected.status !== 200) {
        counts.invalid += 1
        continue
      }
      assert.deepEqual(res.body, expected.body, replay)
      assert.equal(Boolean(res.headers.link), expected.next, `${replay} (Link header)`)
      counts.ok += 1
      if ((expected.body as unknown[]).length) counts.nonEmpty += 1
      if (expected.next) counts.paged += 1
    }
    assert.ok(
      counts.nonEmpty > QUERIES / 3 && counts.paged > QUERIES / 20 && counts.invalid > 0,
      `most answers should have rows, some a next page: ${JSON.stringify(counts)}`,
    )
  })
})
