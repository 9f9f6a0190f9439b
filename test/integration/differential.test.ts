// Randomized differential test: seeded random insights requests over randomized data, answered by the
// gateway and by the reference model, must agree exactly. The data is inserted in several shuffled
// batches, so most sessions arrive as several partial rows. A failure prints the request to replay.
import assert from 'node:assert/strict'
import type { CompiledQuery } from '../../queries/core/compiled'
import { DIMENSIONS as REGISTRY_DIMENSIONS } from '../../queries/core/registry'
import { request } from '../support/openapi-request'
import { createProject } from '../../server/admin/control'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { recording } from '../support/recording-runner'
import { answerInsights, type RawEvent } from '../reference/model'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 20240331)
const QUERIES = Number(process.env.QUARRY_DIFF_QUERIES ?? 320)

const PROJECTS = [
  { id: 'rnd-berlin', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 12, sessions: 500 },
  { id: 'rnd-ny', timezone: 'America/New_York', from: new Date('2024-03-05T00:00:00Z'), days: 12, sessions: 400 },
]
const DIMENSIONS = Object.keys(REGISTRY_DIMENSIONS)
const PRESETS = ['30min', 'lastHour', 'last24h', 'today', 'yesterday', '7d', '30d', '3m', 'monthToDate', 'lastMonth', 'yearToDate']
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu']

type FilterSpec = { name: string; operator: string; value?: (string | number)[] }

function randomFilter(random: Random): FilterSpec {
  const place = random.pick(CHOICES.places)
  const device = random.pick(CHOICES.devices)
  const makers: (() => FilterSpec)[] = [
    () => ({ name: 'country', operator: random.pick(['is', 'isNot']), value: [place.country] }),
    () => ({ name: 'region', operator: 'is', value: [place.region, random.pick(CHOICES.places).region] }),
    () => ({ name: 'referrer_name', operator: random.pick(['isNull', 'isNotNull']) }),
    () => ({ name: 'referrer_type', operator: 'is', value: [random.pick(['search', 'social', 'link'])] }),
    () => ({ name: 'browser', operator: 'startsWith', value: [random.pick(['ch', 'SAF', 'x'])] }),
    () => ({ name: 'os_version', operator: 'regex', value: [random.pick(['^1[67]', '\\.', '^14$'])] }),
    () => ({
      name: 'utm_source',
      operator: random.pick(['contains', 'doesNotContain']),
      value: [random.pick(['news', '"x"', 'GOO']), 'partner'],
    }),
    () => ({ name: 'device', operator: 'is', value: [device.device] }),
    () => ({ name: 'entry_path', operator: 'endsWith', value: [random.pick(['/', 'a', 'C'])] }),
    () => ({
      name: 'path',
      operator: random.pick(['contains', 'doesNotContain', 'startsWith']),
      value: [random.pick(['blog', 'DOCS', 'über', '产', "'s"])],
    }),
    () => ({ name: 'name', operator: random.pick(['is', 'isNot']), value: [random.pick(['screen_view', 'purchase', 'add_to_cart'])] }),
    () => ({
      name: 'title',
      operator: random.pick(['endsWith', 'isNull', 'contains']),
      ...(random.chance(0.5) ? { value: ['"beta"', 's'] } : { value: ['s'] }),
    }),
    () => ({ name: 'origin', operator: 'is', value: [random.pick(CHOICES.origins)] }),
    () => ({ name: 'properties.price', operator: random.pick(['gt', 'lt', 'gte', 'lte']), value: [random.pick([5, 10, 12.5, 100, -3])] }),
    () => ({
      name: 'properties.plan',
      operator: random.pick(['is', 'isNot', 'contains']),
      value: [random.pick(CHOICES.plans.filter(Boolean))],
    }),
    () => ({ name: 'properties.plan', operator: random.pick(['isNull', 'isNotNull']) }),
  ]
  const spec = random.pick(makers)()
  if (spec.operator === 'isNull' || spec.operator === 'isNotNull') delete spec.value
  return spec
}

/** `/pages` order and search, each present or not: every sort key, both directions, searches hitting paths or titles. */
function randomPageOrder(random: Random): Record<string, string> {
  const order: Record<string, string> = {}
  if (random.chance(0.7)) order.sortBy = random.pick(['sessions', 'pageviews', 'bounce_rate', 'avg_duration'])
  if (random.chance(0.5)) order.sortOrder = random.pick(['desc', 'asc'])
  if (random.chance(0.3)) order.search = random.pick(['BLOG', 'über', 'docs "', 'home', '产', "'s", 'c', ''])
  return order
}

function isoWithOffset(date: Date, random: Random): string {
  const offsetMinutes = random.pick([0, 60, 120, -300, 345])
  const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}

function randomRequest(random: Random, project: (typeof PROJECTS)[number]) {
  const span = project.days * 86_400_000
  const now = new Date(project.from.getTime() + random.int(0, span + 3 * 86_400_000))
  const roll = random.next()
  const resource = roll < 0.05 ? 'live' : roll < 0.35 ? 'metrics' : roll < 0.55 ? 'pages' : random.pick(DIMENSIONS)
  const query: Record<string, string> = {}
  if (resource !== 'live') {
    if (random.chance(0.5)) {
      query.range = random.pick(PRESETS)
    } else {
      const start = new Date(project.from.getTime() + random.int(-86_400_000, span))
      const end = new Date(start.getTime() + random.int(3_600_000, 8 * 86_400_000))
      query.startDate = random.chance(0.5) ? start.toISOString().slice(0, 10) : isoWithOffset(start, random)
      if (random.chance(0.85)) query.endDate = random.chance(0.5) ? end.toISOString().slice(0, 10) : isoWithOffset(end, random)
    }
    if (random.chance(0.3)) query.timezone = random.pick(ZONES)
    const filterCount = random.pick([0, 0, 1, 1, 2, 3])
    if (filterCount) query.filters = JSON.stringify(Array.from({ length: filterCount }, () => randomFilter(random)))
    if (resource === 'metrics') {
      const short = ['30min', 'lastHour', 'today', 'yesterday'].includes(query.range)
      if (random.chance(0.5)) query.interval = random.pick(short ? ['minute', 'hour', 'day'] : ['hour', 'day', 'week', 'month'])
    } else {
      if (random.chance(0.8)) query.limit = String(random.int(1, 12))
      if (random.chance(0.6)) query.cursor = String(random.int(1, 4))
      if (resource === 'pages') Object.assign(query, randomPageOrder(random))
    }
  }
  return { resource, query, now }
}

const expected200 = (answers: { status: number }[]) => answers.every((answer) => answer.status === 200)

describe('gateway vs reference model (randomized)', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  const events = new Map<string, RawEvent[]>()
  /** The reference model's answer to a question about `project`, over its events. */
  const modelAnswer = (project: (typeof PROJECTS)[number], resource: string, query: Record<string, string>, now: Date) =>
    answerInsights({ events: events.get(project.id) as RawEvent[], projectTimezone: project.timezone, resource, query, now })

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    const random = new Random(SEED)
    for (const project of PROJECTS) {
      await createProject(h.engine, { id: project.id, timezone: project.timezone })
      const raw = randomEvents(SEED + project.sessions, project)
      events.set(project.id, raw)
      const shuffled = [...raw].sort(() => random.next() - 0.5)
      const batches = 4
      for (let b = 0; b < batches; b += 1) {
        await insertRawEvents(
          h.engine,
          shuffled.filter((_, index) => index % batches === b),
          project.id,
        )
      }
    }
    // Every settled day compacted: these answers read sessions_settled (golden.test.ts reads partial rows).
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date() })
    assert.ok(report.sessions > 0, JSON.stringify(report))
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  it('stores most sessions as several partial rows (the case worth testing)', async () => {
    const rows = await h.engine.client
      .query({
        query:
          'SELECT countIf(parts > 1) AS split, count() AS total FROM (SELECT session_id, count() AS parts FROM sessions GROUP BY session_id)',
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<{ split: number; total: number }>())
    assert.ok(rows[0].split > rows[0].total / 3, JSON.stringify(rows[0]))
  })

  it(`agrees on ${QUERIES} random requests (seed ${SEED})`, async () => {
    const random = new Random(SEED)
    const counts = { ok: 0, invalid: 0, nonEmpty: 0 }
    for (let n = 0; n < QUERIES; n += 1) {
      const project = random.pick(PROJECTS)
      const { resource, query, now } = randomRequest(random, project)
      const url = `/insights/${project.id}/${resource}?${new URLSearchParams(query)}`
      const replay = `request #${n}: now=${now.toISOString()} GET ${url}`
      const expected = modelAnswer(project, resource, query, now)
      h.now = now
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      if (expected.status === 200) {
        assert.deepEqual(res.body, expected.body, replay)
        assert.equal(Boolean(res.headers.link), expected.next, `${replay} (Link header)`)
        counts.ok += 1
        if (JSON.stringify(expected.body).match(/"(sessions|total_sessions|visitors)":[1-9]/)) counts.nonEmpty += 1
      } else {
        counts.invalid += 1
      }
    }
    assert.ok(counts.nonEmpty > QUERIES / 3, `most answers should have data: ${JSON.stringify(counts)}`)
  })

  /** `query` without filters and with its bounds on whole days of the project's zone. */
  const wholeDays = (query: Record<string, string>): Record<string, string> => {
    const { filters: _filters, timezone: _timezone, startDate, endDate, range, ...rest } = query
    if (range !== undefined) return { ...rest, range }
    return { ...rest, startDate: startDate.slice(0, 10), ...(endDate === undefined ? {} : { endDate: endDate.slice(0, 10) }) }
  }
  /** How many breakdowns a joined statement answers. */
  const membersOf = (statement: CompiledQuery): number =>
    statement.template === 'insights.dimension_sets_rollup'
      ? (statement.sql.match(/AND dimension IN \((.*)\)\n/) as string[])[1].split(', ').length
      : (statement.sql.match(/GROUPING SETS \((.*)\)\nORDER BY/) as string[])[1].split('), (').length

  // Breakdowns that wait for a turn together run as one statement (insights.dimension_sets, a grouping set
  // each, or without filters on whole hours insights.dimension_sets_rollup, a member each); every answer
  // must still be the reference's, and no statement may read past max_result_rows.
  it('agrees when every breakdown of a window is asked at once (joined statements)', async () => {
    const random = new Random(SEED + 1)
    const ran: CompiledQuery[] = []
    const templates = new Set<string>()
    for (const maxResultRows of [1_000_000, 30]) {
      const config = { ...h.config, maxResultRows, maxConcurrentQueries: 64 }
      const app = createApp({
        config,
        runner: recording(h.runner, ran),
        directory: h.directory,
        logger: createLogger('error', true),
        clock: () => h.now,
      })
      for (let round = 0; round < 6; round += 1) {
        const project = random.pick(PROJECTS)
        let asked = randomRequest(random, project)
        while (!DIMENSIONS.includes(asked.resource)) asked = randomRequest(random, project)
        const { now } = asked
        // Every other round without filters, on whole days of the project: the rollup's case.
        const query = round % 2 ? asked.query : wholeDays(asked.query)
        h.now = now
        const urls = DIMENSIONS.map((resource) => `/insights/${project.id}/${resource}?${new URLSearchParams(query)}`)
        await request(app).get(urls[0]).set(auth)
        ran.length = 0
        const answers = await Promise.all(urls.map((url) => request(app).get(url).set(auth)))
        for (const [index, resource] of DIMENSIONS.entries()) {
          const expected = modelAnswer(project, resource, query, now)
          const replay = `round ${round}, max_result_rows ${maxResultRows}: now=${now.toISOString()} GET ${urls[index]}`
          assert.equal(answers[index].status, expected.status, `${replay}\n${JSON.stringify(answers[index].body)}`)
          assert.deepEqual(answers[index].body, expected.body, replay)
        }
        if (expected200(answers)) {
          const joined = ran.filter((statement) => statement.template.startsWith('insights.dimension_sets'))
          const members = joined.map(membersOf)
          const rowsToRead = Number(joined[0]?.params.rowsToRead)
          assert.ok(
            joined.length > 0 && ran.length < DIMENSIONS.length,
            `${ran.length} statements for ${DIMENSIONS.length} breakdowns asked at once`,
          )
          assert.ok(
            Math.max(...members) * rowsToRead <= maxResultRows,
            `members ${members} of ${rowsToRead} rows each, max_result_rows ${maxResultRows}`,
          )
          for (const statement of joined) templates.add(statement.template)
        }
      }
    }
    assert.deepEqual([...templates].sort(), ['insights.dimension_sets', 'insights.dimension_sets_rollup'])
  })

  // Entry and exit pages on random windows, zones, filters and pages; every other request without filters on
  // whole days of the project, the session rollup's case.
  it('agrees on entry and exit pages', async () => {
    const random = new Random(SEED + 2)
    let nonEmpty = 0
    const modes = new Set<string>()
    for (let round = 0; round < 80; round += 1) {
      const project = random.pick(PROJECTS)
      let asked = randomRequest(random, project)
      while (!DIMENSIONS.includes(asked.resource)) asked = randomRequest(random, project)
      const mode = random.pick(['entry', 'exit'])
      const query = { ...(round % 2 ? asked.query : wholeDays(asked.query)), mode }
      const url = `/insights/${project.id}/pages/entry_exit?${new URLSearchParams(query)}`
      const replay = `round ${round}: now=${asked.now.toISOString()} GET ${url}`
      const expected = modelAnswer(project, 'pages/entry_exit', query, asked.now)
      h.now = asked.now
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      if (expected.status !== 200) continue
      assert.deepEqual(res.body, expected.body, replay)
      assert.equal(Boolean(res.headers.link), expected.next, `${replay} (Link header)`)
      if ((expected.body as unknown[]).length) {
        nonEmpty += 1
        modes.add(mode)
      }
    }
    assert.ok(nonEmpty > 30 && modes.size === 2, `most answers should have rows of both modes: ${nonEmpty}`)
  })

  // `contains` runs as one multi-needle search, which finds no empty value in an empty text: every text
  // holds the empty value, so these ask for it where most titles and UTM sources are empty.
  it('agrees on an empty contains / doesNotContain value, in empty texts too', async () => {
    const project = PROJECTS[0]
    const now = new Date(project.from.getTime() + (project.days + 1) * 86_400_000)
    const filterSets = [
      [{ name: 'title', operator: 'contains', value: [''] }],
      [{ name: 'title', operator: 'doesNotContain', value: [''] }],
      [{ name: 'utm_source', operator: 'contains', value: ['zzz', ''] }],
      [{ name: 'path', operator: 'contains', value: ['ÜBER', 'zzz'] }],
    ]
    let sessions = 0
    for (const filters of filterSets) {
      for (const resource of ['metrics', 'pages', 'utm_source']) {
        const query = {
          startDate: project.from.toISOString().slice(0, 10),
          endDate: now.toISOString().slice(0, 10),
          filters: JSON.stringify(filters),
        }
        const url = `/insights/${project.id}/${resource}?${new URLSearchParams(query)}`
        const expected = modelAnswer(project, resource, query, now)
        h.now = now
        const res = await request(h.app).get(url).set(auth)
        assert.equal(res.status, 200, `${url}\n${JSON.stringify(res.body)}`)
        assert.deepEqual(res.body, expected.body, url)
        if (resource === 'metrics') sessions += (res.body as { metrics: { total_sessions: number } }).metrics.total_sessions
      }
    }
    assert.ok(sessions > 0, 'the filters keep sessions')
  })

  // The same random questions sent as batches of up to 20, in both zones, each batch with a daily chart over the
  // project's change to summer time (Berlin 31 March, New York 10 March): every result is the reference's answer.
  it('agrees when random questions are sent as one batch', async () => {
    const random = new Random(SEED + 3)
    const app = createApp({
      config: { ...h.config, maxConcurrentQueries: 64 },
      runner: h.runner,
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => h.now,
    })
    let answered = 0
    for (let round = 0; round < 8; round += 1) {
      const project = PROJECTS[round % PROJECTS.length]
      const now = randomRequest(random, project).now
      const overChange = {
        startDate: project.from.toISOString().slice(0, 10),
        endDate: new Date(project.from.getTime() + 10 * 86_400_000).toISOString().slice(0, 10),
        interval: 'day',
      }
      const questions = [
        { resource: 'metrics', query: overChange as Record<string, string> },
        ...Array.from({ length: random.int(1, 19) }, () => randomRequest(random, project)),
      ]
      const requests = questions.map(({ resource, query }, index) => ({ id: `q${index}`, route: resource, params: query }))
      h.now = now
      const res = await request(app).post(`/insights/${project.id}/batch`).set(auth).send({ requests })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      for (const [index, { resource, query }] of questions.entries()) {
        const expected = modelAnswer(project, resource, query, now)
        const result = res.body.results[index]
        const replay = `round ${round}, ${result.id}: now=${now.toISOString()} ${resource}?${new URLSearchParams(query)}`
        assert.equal(result.status, expected.status, `${replay}\n${JSON.stringify(result.body)}`)
        if (expected.status !== 200) continue
        assert.deepEqual(result.body, expected.body, replay)
        answered += 1
      }
    }
    assert.ok(answered > 40, `${answered} questions answered 200`)
  })
})
