// The result cache: identical requests are answered from it (headers, ETag, 304), concurrent identical
// requests share one statement, a late insert into a settled window is seen on the next request (the
// data version is part of the key), one project's answer never reaches another project's request, and
// requests that share a statement but differ in their shaping each get their own answer.
import assert from 'node:assert/strict'
import request from 'supertest'
import type { CompiledQuery } from '../../queries/core/compiled'
import { Runner } from '../../queries/run/runner'
import { createApiClient, createProject } from '../../server/admin/control'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { answerInsights, type RawEvent } from '../reference/model'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { randomEvents } from '../support/random-events'

const A = { id: 'cache-a', timezone: 'Europe/Berlin', from: new Date('2024-03-01T00:00:00Z'), days: 14, sessions: 400 }
const B = { id: 'cache-b', timezone: 'Europe/Berlin', from: new Date('2024-03-01T00:00:00Z'), days: 14, sessions: 150 }
const NOW = new Date('2024-04-20T12:00:00Z')
// Settled: the window ended weeks before now, far past the 24 h session lookback.
const SETTLED = { startDate: '2024-03-01', endDate: '2024-03-14' }
const RECENT = { range: '7d' }

describe('result cache', function () {
  this.timeout(300_000)
  let h: Harness
  let auth: Record<string, string>
  const events = new Map<string, RawEvent[]>()

  before(async () => {
    // Every request reads the data version again, so an insert is seen on the very next request.
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_CACHE_VERSION_MS: '0' }, now: NOW })
    for (const [project, seed] of [
      [A, 1],
      [B, 2],
    ] as const) {
      await createProject(h.engine, { id: project.id, timezone: project.timezone })
      events.set(project.id, randomEvents(seed, project))
      await insertRawEvents(h.engine, events.get(project.id) as RawEvent[], project.id)
    }
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  const get = (project: string, resource: string, query: Record<string, string>, headers = auth) =>
    request(h.app)
      .get(`/insights/${project}/${resource}?${new URLSearchParams(query)}`)
      .set(headers)
  const expected = (project: { id: string; timezone: string }, resource: string, query: Record<string, string>) =>
    answerInsights({ events: events.get(project.id) as RawEvent[], projectTimezone: project.timezone, resource, query, now: NOW }).body

  it('answers a repeated request from the cache with Age, ETag and Cache-Control, and 304s a matching If-None-Match', async () => {
    const first = await get(A.id, 'metrics', SETTLED)
    assert.equal(first.status, 200)
    assert.equal(first.headers['x-cache'], 'miss')
    assert.deepEqual(first.body, expected(A, 'metrics', SETTLED))
    const second = await get(A.id, 'metrics', SETTLED)
    assert.equal(second.headers['x-cache'], 'hit')
    assert.equal(second.text, first.text)
    assert.equal(second.headers.etag, first.headers.etag)
    assert.match(String(second.headers.age), /^\d+$/)
    assert.match(String(second.headers['cache-control']), /^private, max-age=\d+$/)
    assert.ok(Number(/max-age=(\d+)/.exec(second.headers['cache-control'])?.[1]) > 5, 'a settled window is kept longer')
    const recent = await get(A.id, 'metrics', RECENT)
    assert.ok(Number(/max-age=(\d+)/.exec(recent.headers['cache-control'])?.[1]) <= 5, 'a window in the lookback is kept a few seconds')
    const notModified = await get(A.id, 'metrics', SETTLED).set('If-None-Match', `"other", ${first.headers.etag}`)
    assert.equal(notModified.status, 304)
    assert.equal(notModified.text, '')
    const changed = await get(A.id, 'metrics', SETTLED).set('If-None-Match', '"other"')
    assert.equal(changed.status, 200)
    const fresh = await get(A.id, 'metrics', SETTLED).set('Cache-Control', 'no-cache')
    assert.equal(fresh.headers['x-cache'], 'miss', 'Cache-Control: no-cache computes the answer again')
    assert.equal(fresh.text, first.text)
  })

  it('shows a late insert into a settled window on the next request', async () => {
    const before = await get(A.id, 'referrer', SETTLED)
    assert.equal((await get(A.id, 'referrer', SETTLED)).headers['x-cache'], 'hit')
    const late = randomEvents(3, { ...A, days: 10, sessions: 40 })
    await insertRawEvents(h.engine, late, A.id)
    events.get(A.id)?.push(...late)
    const after = await get(A.id, 'referrer', SETTLED)
    assert.equal(after.headers['x-cache'], 'miss')
    assert.deepEqual(after.body, expected(A, 'referrer', SETTLED))
    assert.notDeepEqual(after.body, before.body)
  })

  it("never answers one project's request with another project's cached answer", async () => {
    // Created first: a client is a write, which moves the embedded data version and so the cache's keys.
    const reader = await createApiClient(h.engine, { type: 'read', projectId: B.id })
    const readerAuth = { 'openpanel-client-id': reader.id, 'openpanel-client-secret': reader.secret }
    const a = await get(A.id, 'pages', SETTLED)
    const b = await get(B.id, 'pages', SETTLED)
    assert.equal(b.headers['x-cache'], 'miss')
    assert.deepEqual(a.body, expected(A, 'pages', SETTLED))
    assert.deepEqual(b.body, expected(B, 'pages', SETTLED))
    assert.notDeepEqual(a.body, b.body)
    assert.equal((await get(A.id, 'pages', SETTLED)).headers['x-cache'], 'hit')
    const refused = await get(A.id, 'pages', SETTLED, readerAuth)
    assert.equal(refused.status, 403, 'authorization runs before the cache')
    assert.equal(refused.headers['x-cache'], undefined)
  })

  it('shapes cached rows for each request: requests that differ only in what shape reads get their own answers', async () => {
    // Each pair compiles to the same statement; only the chart's shaping (formulas, names, formula items) differs.
    const views = { name: 'screen_view' }
    const carts = { name: 'add_to_cart' }
    const pairs: [unknown[], unknown[]][] = [
      [
        [views, { type: 'formula', formula: 'A*0', displayName: 'x' }],
        [views, { type: 'formula', formula: 'A*100', displayName: 'x' }],
      ],
      [
        [views, { type: 'formula', formula: 'A*2', displayName: 'x' }],
        [views, { type: 'formula', formula: 'A*2', displayName: 'y' }],
      ],
      [[{ ...views, displayName: 'Views' }], [{ ...views, displayName: 'Page views' }]],
      [
        [views, carts, { type: 'formula', formula: 'A/B' }],
        [views, carts, { type: 'formula', formula: 'A/B' }, { type: 'formula', formula: 'B-A' }],
      ],
    ]
    const chartOf = (series: unknown[]) =>
      request(h.app)
        .get(`/export/charts?${new URLSearchParams({ projectId: A.id, ...SETTLED, series: JSON.stringify(series) })}`)
        .set(auth)
    for (const [first, second] of pairs) {
      const a = await chartOf(first)
      const b = await chartOf(second)
      const fresh = await chartOf(second).set('Cache-Control', 'no-cache')
      assert.equal(b.status, 200, b.text)
      assert.equal(b.headers['x-cache'], 'hit', 'the same statement: its rows are shared')
      assert.equal(fresh.headers['x-cache'], 'miss')
      assert.deepEqual(b.body, fresh.body, JSON.stringify(second))
      assert.notDeepEqual(b.body, a.body, JSON.stringify(second))
      assert.notEqual(b.headers.etag, a.headers.etag)
    }
  })

  it('reading the version as a server does, sees a change of the sessions alone, and caches nothing while a mutation runs', async () => {
    // The version read by a statement, as on a server (the embedded engine's write count is not used).
    const config = h.config
    const reading = new Runner({ lanes: h.engine.openLanes(config), guardrails: config, maxQueued: config.engineQueue })
    const app = createApp({ config, runner: reading, directory: h.directory, logger: createLogger('error', true), clock: () => NOW })
    const browsers = () =>
      request(app)
        .get(`/insights/${A.id}/browser?${new URLSearchParams(SETTLED)}`)
        .set(auth)
    assert.equal((await browsers()).headers['x-cache'], 'miss')
    assert.equal((await browsers()).headers['x-cache'], 'hit')
    const command = (query: string, params: Record<string, unknown> = {}) => h.engine.client.command({ query, query_params: params })
    // A merge changes no row: the version holds.
    await command('OPTIMIZE TABLE events FINAL')
    await command('OPTIMIZE TABLE sessions FINAL')
    assert.equal((await browsers()).headers['x-cache'], 'hit', 'merges leave the version as it is')
    // A change to the partial session rows alone, as an import's rebuild of a session makes: events are as they were.
    // One session's partial rows go, and come back (kept aside meanwhile), as an import's rebuild of a session does.
    await command(
      'CREATE TABLE kept_session ENGINE = Memory AS SELECT * FROM sessions WHERE project_id = {project:String} AND session_id = (SELECT min(session_id) FROM sessions WHERE project_id = {project:String})',
      { project: A.id },
    )
    await command('ALTER TABLE sessions DELETE WHERE session_id IN (SELECT session_id FROM kept_session) SETTINGS mutations_sync = 2')
    const changed = await browsers()
    assert.equal(changed.headers['x-cache'], 'miss', 'the rows of sessions changed, not the count of events')
    assert.notDeepEqual(changed.body, expected(A, 'browser', SETTLED), 'a session is missing')
    await command('INSERT INTO sessions SELECT * FROM kept_session')
    await command('DROP TABLE kept_session')
    const restored = await browsers()
    assert.equal(restored.headers['x-cache'], 'miss')
    assert.deepEqual(restored.body, expected(A, 'browser', SETTLED))
    // A mutation under way (merges stopped, so it cannot finish): answers are computed, never stored.
    await command('SYSTEM STOP MERGES sessions')
    try {
      await command(
        'ALTER TABLE sessions UPDATE screen_views = screen_views + 0 WHERE project_id = {project:String} SETTINGS mutations_sync = 0',
        { project: A.id },
      )
      assert.equal((await browsers()).headers['x-cache'], 'miss')
      assert.equal((await browsers()).headers['x-cache'], 'miss', 'nothing stored while the mutation runs')
    } finally {
      await command('SYSTEM START MERGES sessions')
    }
  })

  it('runs one statement for identical requests in flight together', async () => {
    const statements: string[] = []
    const run = h.runner.run.bind(h.runner)
    // The data statement is held back a while, so every request arrives while it is in flight.
    const gate = new Promise((resolve) => setTimeout(resolve, 2_000))
    h.runner.run = (async (query: CompiledQuery, ...rest: unknown[]) => {
      statements.push(query.template)
      if (query.template !== 'control.data-version') await gate
      return run(query, ...(rest as []))
    }) as typeof run
    try {
      const query = { ...SETTLED, filters: JSON.stringify([{ name: 'country', operator: 'is', value: ['DE'] }]) }
      const answers = await Promise.all(Array.from({ length: 6 }, () => get(A.id, 'country', query)))
      for (const res of answers) {
        assert.equal(res.headers['x-cache'], 'miss', 'every request waited for the shared statement')
        assert.deepEqual(res.body, expected(A, 'country', query))
      }
      const ran = statements.filter((template) => template !== 'control.data-version')
      assert.deepEqual(
        ran.filter((template) => template !== 'insights.settled_days'),
        ['insights.dimension'],
      )
      assert.ok(ran.length <= 2, 'the settled check, when it runs, is shared too')
    } finally {
      h.runner.run = run
    }
  })
})

describe('result cache settings', function () {
  this.timeout(120_000)
  let h: Harness

  afterEach(() => h.close())

  it('stores nothing past its byte budget', async () => {
    h = await startHarness({ env: { QUARRY_CACHE_BYTES: '100' }, now: NOW })
    await createProject(h.engine, { id: A.id, timezone: A.timezone })
    const headers = await rootHeaders(h.engine)
    for (let n = 0; n < 2; n += 1)
      assert.equal((await request(h.app).get(`/insights/${A.id}/metrics?range=30d`).set(headers)).headers['x-cache'], 'miss')
  })

  it('caches nothing with a lifetime of 0', async () => {
    h = await startHarness({ env: { QUARRY_CACHE_SETTLED_SECONDS: '0' }, now: NOW })
    await createProject(h.engine, { id: A.id, timezone: A.timezone })
    const headers = await rootHeaders(h.engine)
    for (let n = 0; n < 2; n += 1) {
      const res = await request(h.app)
        .get(`/insights/${A.id}/metrics?${new URLSearchParams(SETTLED)}`)
        .set(headers)
      assert.equal(res.headers['x-cache'], 'miss')
      assert.equal(res.headers['cache-control'], 'private, max-age=0')
    }
  })

  it('is off at 0 bytes: every answer is computed, with max-age=0', async () => {
    h = await startHarness({ env: { QUARRY_CACHE_BYTES: '0' }, now: NOW })
    await createProject(h.engine, { id: A.id, timezone: A.timezone })
    const headers = await rootHeaders(h.engine)
    for (let n = 0; n < 2; n += 1) {
      const res = await request(h.app).get(`/insights/${A.id}/metrics?range=30d`).set(headers)
      assert.equal(res.headers['x-cache'], 'miss')
      assert.equal(res.headers['cache-control'], 'private, max-age=0')
    }
  })
})
