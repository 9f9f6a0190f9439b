// /export/charts against the embedded engine: randomized chart requests answered by the gateway and by
// the reference model must agree exactly; a failure prints the request to replay.
import assert from 'node:assert/strict'
import { chart } from '../../queries/charts/chart'
import { SEGMENTS } from '../../queries/charts/chart-params'
import { prepare } from '../../queries/core/pipeline'
import { createProject } from '../../server/admin/control'
import { request } from '../support/openapi-request'
import { answerChart } from '../reference/charts'
import type { RawEvent } from '../reference/model'
import { insertRawEvents, startWithEvents, type Harness } from '../support/harness'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 4242)
const CHARTS = Number(process.env.QUARRY_DIFF_CHARTS ?? 220)
const PROJECT = { id: 'charts', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 12, sessions: 400 }
const BREAKDOWNS = ['country', 'browser', 'properties.plan', 'name', 'path', 'referrer_type', 'city']

function randomItem(random: Random): Record<string, unknown> {
  const segment = random.pick(SEGMENTS)
  const item: Record<string, unknown> = { name: random.pick(['screen_view', 'screen_view', 'purchase', 'add_to_cart', '*']) }
  if (segment !== 'event' || random.chance(0.3)) item.segment = segment
  if (segment.startsWith('property_')) item.property = random.pick(['properties.price', 'duration', 'revenue'])
  if (random.chance(0.3)) {
    item.filters = [
      random.pick([
        { name: 'country', operator: 'is', value: [random.pick(CHOICES.places).country] },
        { name: 'path', operator: 'contains', value: ['blog'] },
        { name: 'properties.price', operator: 'gt', value: [10] },
        { name: 'browser', operator: 'isNot', value: ['Safari'] },
      ]),
    ]
  }
  if (random.chance(0.2)) item.displayName = `Series ${random.int(1, 9)}`
  return item
}

function randomChart(random: Random): { query: Record<string, string>; now: Date } {
  const now = new Date(PROJECT.from.getTime() + random.int(2, PROJECT.days + 2) * 86_400_000 + random.int(0, 86_399_999))
  const items = Array.from({ length: random.int(1, 3) }, () => randomItem(random))
  const query: Record<string, string> = {}
  const withBreakdowns = random.chance(0.4)
  if (withBreakdowns) {
    query.breakdowns = JSON.stringify(Array.from({ length: random.int(1, 2) }, () => ({ name: random.pick(BREAKDOWNS) })))
    if (random.chance(0.7)) query.breakdownLimit = String(random.int(1, 5))
  }
  // With breakdowns, a formula's groups are the union of its items' kept groups, which differ by item.
  if (items.length >= 2 && random.chance(0.5)) {
    items.push({ type: 'formula', formula: random.pick(['A/B', 'B/A*100', '(A+B)/2', 'A-B*2', '-A+1.5']) })
  }
  query.series = JSON.stringify(items)
  if (random.chance(0.5)) {
    query.range = random.pick(['7d', '30d', 'today', 'yesterday', 'lastHour', 'monthToDate'])
  } else {
    const start = new Date(PROJECT.from.getTime() + random.int(0, PROJECT.days - 2) * 86_400_000)
    query.startDate = start.toISOString().slice(0, 10)
    query.endDate = new Date(start.getTime() + random.int(0, 5) * 86_400_000).toISOString().slice(0, 10)
  }
  if (random.chance(0.5)) query.interval = random.pick(['hour', 'day', 'week', 'month'])
  if (query.range === 'lastHour' && random.chance(0.5)) query.interval = 'minute'
  if (random.chance(0.4)) query.previous = 'true'
  if (random.chance(0.2)) query.timezone = random.pick(['UTC', 'America/New_York'])
  return { query, now }
}

describe('charts: gateway vs reference model (randomized)', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  let events: RawEvent[]

  before(async () => {
    events = randomEvents(SEED, PROJECT)
    ;({ h, auth } = await startWithEvents(PROJECT, events))
  })
  after(() => h.close())

  it(`agrees on ${CHARTS} random charts (seed ${SEED})`, async () => {
    const random = new Random(SEED)
    let withData = 0
    for (let n = 0; n < CHARTS; n += 1) {
      const { query, now } = randomChart(random)
      const url = `/export/charts?${new URLSearchParams({ projectId: PROJECT.id, ...query })}`
      const replay = `chart #${n}: now=${now.toISOString()} GET ${url}`
      const expected = answerChart({ events, projectTimezone: PROJECT.timezone, query, now })
      h.now = now
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, expected.status, `${replay}\n${JSON.stringify(res.body)}`)
      if (res.status === 200) {
        assert.deepEqual(res.body, expected.body, replay)
        if ((res.body as { series: { metrics: { sum: number } }[] }).series.some((series) => series.metrics.sum)) withData += 1
      }
    }
    assert.ok(withData > CHARTS / 3, `most charts should have data: ${withData}`)
  })

  /** A project of its own with every `parts`-th event in each insert: a session's and a profile's events lie in several parts. */
  async function insertApart(id: string, seed: number, parts: number) {
    const project = { ...PROJECT, id }
    const events = randomEvents(seed, project)
    await createProject(h.engine, project)
    for (let part = 0; part < parts; part += 1)
      await insertRawEvents(
        h.engine,
        events.filter((_, index) => index % parts === part),
        project.id,
      )
    return { project, events }
  }

  /**
   * A day chart of `items` with `previous` over a window that holds the change to summer time (2024-03-31 in
   * Berlin) and ends on a whole hour (22:00 UTC), with the statement it compiles to at the test's clock.
   */
  function dstChart(project: typeof PROJECT, items: object[]) {
    const query = { startDate: '2024-03-26', endDate: '2024-03-31', interval: 'day', previous: 'true', series: JSON.stringify(items) }
    h.now = new Date('2024-04-05T00:00:00Z')
    return {
      query,
      compiled: prepare(chart, query, { project: { ...project, name: project.id }, now: h.now, sessionLookbackMs: 0 }).compiled,
    }
  }

  /** The gateway answers the chart as the reference model does, with data in every item. */
  async function assertAsReference(project: typeof PROJECT, events: RawEvent[], query: Record<string, string>) {
    const res = await request(h.app)
      .get(`/export/charts?${new URLSearchParams({ projectId: project.id, ...query })}`)
      .set(auth)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const sums = (res.body as { series: { metrics: { sum: number } }[] }).series.map((series) => series.metrics.sum)
    assert.ok(
      sums.every((sum) => sum > 0),
      `every item has data: ${sums.join(', ')}`,
    )
    assert.deepEqual(res.body, answerChart({ events, projectTimezone: project.timezone, query, now: h.now }).body)
  }

  it('answers items by the hour from the chart_by_hour projection, over parts inserted apart, as the reference does', async () => {
    const { project, events } = await insertApart('hourly', SEED + 1, 3)
    const items = [
      { name: 'screen_view', segment: 'user' },
      { name: '*', segment: 'session' },
      { name: 'purchase', segment: 'property_sum', property: 'revenue' },
      { name: 'add_to_cart' },
    ]
    const { query, compiled } = dstChart(project, items)
    const plan = await h.engine.client.query({
      query: `EXPLAIN projections = 1 ${compiled.sql}`,
      query_params: compiled.params,
      format: 'JSONEachRow',
    })
    const reads = ((await plan.json()) as { explain: string }[]).flatMap((row) => /ReadFromMergeTree.*/.exec(row.explain) ?? [])
    assert.deepEqual(
      reads,
      items.map(() => 'ReadFromMergeTree (chart_by_hour)'),
    )
    await assertAsReference(project, events, query)
  })

  it('counts the users and sessions of items read from the rows over the keys stored with each event (first events too), as the reference does', async () => {
    const { project, events } = await insertApart('keyed', SEED + 2, 2)
    const stored = await h.engine.client.query({
      query: `SELECT count() AS events, countIf(session_key != reinterpretAsUInt128(sipHash128(session_id)) OR profile_key != reinterpretAsUInt128(sipHash128(profile_id))) AS wrong
        FROM events WHERE project_id = {project:String}`,
      query_params: { project: project.id },
      format: 'JSONEachRow',
    })
    assert.deepEqual(await stored.json(), [{ events: events.length, wrong: 0 }])
    const filters = [{ name: 'path', operator: 'contains', value: ['/'] }]
    const { query, compiled } = dstChart(project, [
      { name: '*', segment: 'session', filters },
      { name: 'screen_view', segment: 'user', filters },
      { name: 'screen_view', segment: 'user_average', filters },
      { name: 'screen_view', segment: 'one_event_per_user' },
    ])
    assert.match(compiled.sql, /uniqExact\(session_key\)/)
    assert.match(compiled.sql, /count\(\) \/ uniqExact\(profile_key\)/)
    assert.match(compiled.sql, /GROUP BY in_window, labels, profile_key/)
    assert.doesNotMatch(compiled.sql, /(session|profile)_id/)
    await assertAsReference(project, events, query)
  })
})
