// Randomized differential test of `/table`: seeded random dimensions, metrics, goals, orders, pages, windows
// and filters (flat and trees) over random data in Berlin and New York (each window range holds a DST change),
// answered by the gateway and by the reference model (test/reference/table.ts), which must agree exactly:
// first from partial rows, then with every settled day compacted. A failure prints the request to replay.
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import type { RawEvent } from '../reference/model'
import { answerCompared } from '../reference/compare'
import { TABLE_DIMENSION_NAMES, TABLE_METRIC_NAMES, answerTable, type TableAnswer } from '../reference/table'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_TABLE_SEED ?? 20240343)
const QUERIES = Number(process.env.QUARRY_TABLE_QUERIES ?? 60)

const PROJECTS = [
  { id: 'tbl-berlin', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 12, sessions: 300 },
  { id: 'tbl-ny', timezone: 'America/New_York', from: new Date('2024-03-05T00:00:00Z'), days: 12, sessions: 300 },
]
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York']
const PRESETS = ['today', 'yesterday', '7d', '30d', 'monthToDate', 'lastMonth']

function randomFilters(random: Random): string | undefined {
  const place = random.pick(CHOICES.places)
  const flat = [
    () => ({ name: 'country', operator: random.pick(['is', 'isNot']), value: [place.country] }),
    () => ({ name: 'referrer_type', operator: 'is', value: [random.pick(['search', 'social', 'link'])] }),
    () => ({ name: 'path', operator: random.pick(['contains', 'startsWith']), value: [random.pick(['blog', 'docs', '/'])] }),
    () => ({ name: 'name', operator: 'is', value: [random.pick(['purchase', 'add_to_cart', 'signup'])] }),
    () => ({ name: 'properties.price', operator: random.pick(['gt', 'lte']), value: [random.pick([5, 12.5, 100])] }),
  ]
  const roll = random.next()
  if (roll < 0.4) return undefined
  if (roll < 0.75) return JSON.stringify(Array.from({ length: random.int(1, 2) }, () => random.pick(flat)()))
  return JSON.stringify({
    or: [
      { name: 'country', operator: 'is', value: [place.country] },
      { performed: { name: random.pick(CHOICES.customEvents) } },
      { not: { performed: { name: 'screen_view', filters: [{ name: 'path', operator: 'contains', value: ['blog'] }] } } },
    ].slice(0, random.int(1, 3)),
  })
}

function randomGoal(random: Random): string {
  const filters = random.chance(0.5)
    ? [{ name: 'properties.price', operator: random.pick(['gt', 'lt']), value: [random.pick([10, 50])] }]
    : []
  return JSON.stringify({
    performed: { name: random.pick([...CHOICES.customEvents, 'screen_view']), ...(filters.length ? { filters } : {}) },
  })
}

/** `count` distinct items of `items`, in random order. */
function distinct<T>(random: Random, items: readonly T[], count: number): T[] {
  const left = [...items]
  return Array.from({ length: count }, () => left.splice(random.int(0, left.length - 1), 1)[0])
}

function randomRequest(random: Random, project: (typeof PROJECTS)[number]) {
  const span = project.days * 86_400_000
  const now = new Date(project.from.getTime() + random.int(0, span + 2 * 86_400_000))
  const query: Record<string, string> = {}
  if (random.chance(0.4)) {
    query.range = random.pick(PRESETS)
  } else {
    const start = new Date(project.from.getTime() + random.int(-86_400_000, span))
    const end = new Date(start.getTime() + random.int(3_600_000, 8 * 86_400_000))
    query.startDate = random.chance(0.6) ? start.toISOString().slice(0, 10) : start.toISOString()
    query.endDate = random.chance(0.6) ? end.toISOString().slice(0, 10) : end.toISOString()
  }
  if (random.chance(0.3)) query.timezone = random.pick(ZONES)
  const dimensions = distinct(random, TABLE_DIMENSION_NAMES, random.int(1, 3))
  const metrics = distinct(random, TABLE_METRIC_NAMES, random.int(1, 8))
  query.dimensions = dimensions.join(',')
  query.metrics = metrics.join(',')
  if (metrics.includes('conversion_rate')) query.goal = randomGoal(random)
  if (random.chance(0.5)) query.orderBy = `${random.pick(metrics)}:${random.pick(['desc', 'asc'])}`
  const filters = randomFilters(random)
  if (filters) query.filters = filters
  if (random.chance(0.8)) query.limit = String(random.int(1, 15))
  if (random.chance(0.5)) query.cursor = String(random.int(1, 3))
  if (random.chance(0.3)) query.compare = random.pick(['previous', 'year'])
  return { query, now }
}

describe('/table: gateway vs reference model (randomized)', function () {
  this.timeout(300_000)
  let h: Harness
  let auth: Record<string, string>
  const events = new Map<string, RawEvent[]>()

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    const random = new Random(SEED)
    for (const project of PROJECTS) {
      await createProject(h.engine, { id: project.id, timezone: project.timezone })
      const raw = randomEvents(SEED + project.sessions, project)
      events.set(project.id, raw)
      // Shuffled into batches, so that most sessions arrive as several partial rows.
      const shuffled = [...raw].sort(() => random.next() - 0.5)
      for (let batch = 0; batch < 3; batch += 1) {
        await insertRawEvents(
          h.engine,
          shuffled.filter((_, index) => index % 3 === batch),
          project.id,
        )
      }
    }
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  const agrees = async (stage: string, seed: number) => {
    const random = new Random(seed)
    let nonEmpty = 0
    for (let n = 0; n < QUERIES / 2; n += 1) {
      const project = random.pick(PROJECTS)
      const { query, now } = randomRequest(random, project)
      const url = `/insights/${project.id}/table?${new URLSearchParams(query)}`
      const replay = `${stage} #${n}: now=${now.toISOString()} GET ${url}`
      const asked = { events: events.get(project.id) as RawEvent[], projectTimezone: project.timezone, query, now }
      const expected = (query.compare ? answerCompared({ ...asked, resource: 'table' }) : answerTable(asked)) as TableAnswer
      h.now = now
      const res = await request(h.app)
        .get(url)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, expected.body, replay)
      assert.equal(Boolean(res.headers.link), expected.next, `${replay} (Link header)`)
      if ((expected.body?.length ?? 0) > 1) nonEmpty += 1
    }
    assert.ok(nonEmpty > QUERIES / 6, `most answers should have several rows: ${nonEmpty} of ${QUERIES / 2}`)
  }

  it(`agrees on ${QUERIES / 2} random requests from partial rows (seed ${SEED})`, () => agrees('partial rows', SEED))

  it(`agrees on ${QUERIES / 2} random requests with every settled day compacted (seed ${SEED + 1})`, async () => {
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date() })
    assert.ok(report.sessions > 0, JSON.stringify(report))
    await agrees('compacted', SEED + 1)
  })
})
