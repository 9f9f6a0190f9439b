// A filter tree at the leaf cap, every leaf a `performed` leaf with a filter, on every route that takes trees:
// each answers 200 with the reference model's numbers (the tree's SQL grows linearly with its leaves, so the
// cap fits the engine's query size limits).
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import type { CompiledQuery } from '../../queries/core/compiled'
import { MAX_TREE_LEAVES } from '../../queries/core/filter-tree'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { recording } from '../support/recording-runner'
import { DIMENSIONS } from '../../queries/core/registry'
import { request } from '../support/openapi-request'
import { answerBehaviour } from '../reference/behaviour'
import { answerInsights, listSessions, type RawEvent } from '../reference/model'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { randomEvents } from '../support/random-events'

const PROJECT = { id: 'tree-cap', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 8, sessions: 300 }
const NOW = new Date('2024-03-31T15:00:00Z')
const QUERY = { startDate: '2024-03-25', endDate: '2024-03-31' }

const NAMES = ['screen_view', 'add_to_cart', 'signup', 'purchase', 'session_start']
const FILTERS = [
  { name: 'path', operator: 'contains', value: ['blog'] },
  { name: 'path', operator: 'startsWith', value: ['/docs'] },
  { name: 'properties.price', operator: 'gt', value: [10] },
  { name: 'properties.plan', operator: 'is', value: ['pro'] },
  { name: 'title', operator: 'isNotNull' },
]
/** The i-th of 25 distinct performed leaves, each one filter (two leaves of the cap each). */
const leaf = (i: number) => ({ performed: { name: NAMES[i % NAMES.length], filters: [FILTERS[Math.floor(i / NAMES.length)]] } })
const leaves = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => leaf(from + index))

/** Sessions with one of ten events, not with all of five others, and one of the last ten: depth 4, 50 leaves. */
const CAP_TREE = {
  and: [{ or: leaves(0, 10) }, { not: { and: leaves(10, 15) } }, { or: [{ and: [leaf(15), { not: leaf(16) }] }, ...leaves(17, 25)] }],
}

const ROUTES: { resource: string; more?: Record<string, string> }[] = [
  { resource: 'metrics' },
  { resource: 'pages' },
  { resource: 'sessions' },
  { resource: 'pages/entry_exit', more: { mode: 'entry' } },
  { resource: 'pages/entry_exit', more: { mode: 'exit' } },
  { resource: 'paths' },
  ...Object.keys(DIMENSIONS).map((resource) => ({ resource })),
]

describe('a filter tree at the leaf cap, every leaf performed with a filter', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  let events: RawEvent[]

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    await createProject(h.engine, { id: PROJECT.id, timezone: PROJECT.timezone })
    events = randomEvents(20261202, PROJECT)
    await insertRawEvents(h.engine, events, PROJECT.id)
    // The first days settled (their combined rows answer), the last ones regrouped from partial rows.
    await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date('2024-03-30T00:00:00Z') })
    auth = await rootHeaders(h.engine)
    h.now = NOW
  })
  after(() => h.close())

  it('holds exactly the cap of leaves, and the model keeps some sessions and not others', () => {
    const tree = JSON.stringify(CAP_TREE)
    assert.equal((tree.match(/"performed"/g) ?? []).length + (tree.match(/"operator"/g) ?? []).length, MAX_TREE_LEAVES)
    const kept = answerInsights({
      events,
      projectTimezone: PROJECT.timezone,
      resource: 'metrics',
      query: { ...QUERY, filters: tree },
      now: NOW,
    })
    const all = answerInsights({ events, projectTimezone: PROJECT.timezone, resource: 'metrics', query: QUERY, now: NOW })
    const sessions = (answer: typeof kept) => (answer.body as { metrics: { total_sessions: number } }).metrics.total_sessions
    assert.ok(sessions(kept) > 0 && sessions(kept) < sessions(all), `${sessions(kept)} of ${sessions(all)} sessions kept`)
  })

  it("answers every breakdown asked at once, in joined statements, with the model's numbers", async () => {
    const ran: CompiledQuery[] = []
    const config = { ...h.config, maxConcurrentQueries: 64 }
    const app = createApp({
      config,
      runner: recording(h.runner, ran),
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => h.now,
    })
    const query = { ...QUERY, filters: JSON.stringify(CAP_TREE) }
    const breakdowns = Object.keys(DIMENSIONS)
    const answers = await Promise.all(
      breakdowns.map((resource) =>
        request(app)
          .get(`/insights/${PROJECT.id}/${resource}?${new URLSearchParams(query)}${resource === 'sessions' ? '&detail=true' : ''}`)
          .set(auth),
      ),
    )
    for (const [index, resource] of breakdowns.entries()) {
      assert.equal(answers[index].status, 200, `${resource}: ${JSON.stringify(answers[index].body)}`)
      assert.deepEqual(
        answers[index].body,
        answerInsights({ events, projectTimezone: PROJECT.timezone, resource, query, now: NOW }).body,
        resource,
      )
    }
    const joined = ran.filter((statement) => statement.template === 'insights.dimension_sets')
    assert.ok(joined.length > 0, `${ran.length} statements for ${breakdowns.length} breakdowns, none joined`)
  })

  for (const { resource, more } of ROUTES) {
    it(`answers ${resource}${more ? ` (${new URLSearchParams(more)})` : ''} with the model's numbers`, async () => {
      const query: Record<string, string> = { ...QUERY, ...more, filters: JSON.stringify(CAP_TREE) }
      const res = await request(h.app)
        .get(`/insights/${PROJECT.id}/${resource}?${new URLSearchParams(query)}${resource === 'sessions' ? '&detail=true' : ''}`)
        .set(auth)
      assert.equal(res.status, 200, JSON.stringify(res.body))
      const context = { events, projectTimezone: PROJECT.timezone, query, now: NOW }
      if (resource === 'sessions') {
        assert.deepEqual(res.body.data, listSessions(context)?.slice(0, 20))
      } else {
        const expected = resource === 'paths' ? answerBehaviour({ ...context, resource }) : answerInsights({ ...context, resource })
        assert.deepEqual(res.body, expected.body)
      }
    })
  }
})
