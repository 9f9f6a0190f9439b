// Randomized differential test of OpenPanel's analytics routes: seeded random requests (OpenPanel's default
// window or explicit ones, zones with DST and 45-minute offsets, every route's own parameters, `compare` on
// the routes that take it, and a few refused values) over random events, answered by the gateway and by the
// reference model (test/reference/openpanel-routes.ts), must agree exactly. A failure prints the request to replay.
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import { answerOpenPanel, OPENPANEL_RESOURCES, type OpenPanelResource } from '../reference/openpanel-routes'
import type { RawEvent } from '../reference/model'
import { request } from '../support/openapi-request'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 20240420)
const QUERIES = Number(process.env.QUARRY_DIFF_QUERIES ?? 150)
const PROJECT = { id: 'op-diff', timezone: 'Europe/Berlin', from: new Date('2024-02-10T00:00:00Z'), days: 50, sessions: 500 }
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu']
/** The routes that take `compare` (over their base's compare, test/reference/compare.ts). */
const COMPARED: readonly OpenPanelResource[] = ['overview', 'pages/top', 'traffic/referrers', 'traffic/geo', 'traffic/devices']
const BREAKDOWNS: Record<string, string[]> = {
  'traffic/referrers': ['referrer_name', 'referrer_type', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign'],
  'traffic/geo': ['country', 'region', 'city'],
  'traffic/devices': ['device', 'browser', 'os'],
}

function randomRequest(random: Random): { resource: OpenPanelResource; query: Record<string, string>; now: Date } {
  const now = new Date(PROJECT.from.getTime() + random.int(5, PROJECT.days + 40) * 86_400_000 + random.int(0, 86_399_999))
  const resource = random.pick(OPENPANEL_RESOURCES)
  const query: Record<string, string> = {}
  const dated = resource !== 'engagement'
  if (dated && random.chance(0.5)) {
    const start = new Date(now.getTime() - random.int(1, 45) * 86_400_000 - random.int(0, 86_399_999))
    query.startDate = random.chance(0.5) ? start.toISOString().slice(0, 10) : start.toISOString()
    if (random.chance(0.5)) query.endDate = new Date(start.getTime() + random.int(1, 20) * 86_400_000).toISOString().slice(0, 10)
  } else if (dated && resource !== 'events' && random.chance(0.3)) {
    query.range = random.pick(['7d', '30d', 'yesterday', 'today', 'lastMonth'])
  }
  if (random.chance(0.4)) query.timezone = random.pick(ZONES)
  if (COMPARED.includes(resource) && random.chance(0.35)) query.compare = random.pick(['previous', 'previous', 'year', 'week'])
  switch (resource) {
    case 'overview':
      if (random.chance(0.6)) query.interval = random.pick(['hour', 'day', 'week', 'month', 'minute'])
      break
    case 'active_users':
      if (random.chance(0.8)) query.days = String(random.pick([1, 7, 30, random.int(1, 90), 91]))
      break
    case 'pages/top':
      if (random.chance(0.5)) query.limit = String(random.int(1, 12))
      break
    case 'pages/performance':
      if (random.chance(0.5)) query.sortBy = random.pick(['sessions', 'pageviews', 'bounce_rate', 'avg_duration'])
      if (random.chance(0.5)) query.sortOrder = random.pick(['asc', 'desc'])
      if (random.chance(0.3)) query.search = random.pick(['blog', 'DOCS', 'ü', 'pricing', 'zzz'])
      if (random.chance(0.5)) query.limit = String(random.pick([random.int(1, 8), 501]))
      break
    case 'traffic/referrers':
    case 'traffic/geo':
    case 'traffic/devices':
      if (random.chance(0.7)) query.breakdown = random.pick([...BREAKDOWNS[resource], 'country'])
      if (random.chance(0.4)) query.limit = String(random.int(1, 5))
      break
    case 'engagement':
      break
    case 'events':
      if (random.chance(0.4)) query.eventNames = random.pick(['screen_view', 'purchase', 'signup', 'none'])
      if (random.chance(0.3)) query.path = random.pick(CHOICES.paths)
      if (random.chance(0.3)) query.country = random.pick(['DE', 'US', ''])
      if (random.chance(0.2)) query.browser = random.pick(['Chrome', 'Safari'])
      if (random.chance(0.6)) query.limit = String(random.pick([random.int(1, 100), 0, 101]))
      break
  }
  return { resource, query, now }
}

describe("OpenPanel's analytics routes vs reference model (randomized)", function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  let events: RawEvent[]

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    await createProject(h.engine, { id: PROJECT.id, timezone: PROJECT.timezone })
    events = randomEvents(SEED, PROJECT)
    // Several inserts: sessions arrive as partial rows, as a live ingest writes them.
    for (let b = 0; b < 3; b += 1)
      await insertRawEvents(
        h.engine,
        events.filter((_, index) => index % 3 === b),
        PROJECT.id,
      )
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  it(`agrees on ${QUERIES} random requests (seed ${SEED})`, async () => {
    const random = new Random(SEED)
    const counts: Record<string, number> = { invalid: 0, compared: 0 }
    for (let n = 0; n < QUERIES; n += 1) {
      const { resource, query, now } = randomRequest(random)
      const url = `/insights/${PROJECT.id}/${resource}?${new URLSearchParams(query)}`
      const replay = `request #${n}: now=${now.toISOString()} GET ${url}`
      const expected = answerOpenPanel({ events, projectId: PROJECT.id, projectTimezone: PROJECT.timezone, resource, query, now })
      h.now = now
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      if (expected.status !== 200) {
        counts.invalid += 1
        continue
      }
      assert.deepEqual(res.body, expected.body, replay)
      assert.equal(Boolean(res.headers.link), expected.next, `${replay} (Link header)`)
      counts[resource] = (counts[resource] ?? 0) + 1
      if (query.compare) counts.compared += 1
    }
    // Every route answered, and some requests were refused.
    for (const resource of OPENPANEL_RESOURCES) assert.ok(counts[resource] > 0, `${resource}: ${JSON.stringify(counts)}`)
    assert.ok(counts.invalid > 0, JSON.stringify(counts))
    assert.ok(counts.compared > 0, JSON.stringify(counts))
  })
})
