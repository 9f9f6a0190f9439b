import assert from 'node:assert/strict'
import { request } from '../support/openapi-request'
import type { CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { createApiClient, createProject } from '../../server/admin/control'
import { listMigrations, migrate, renderMigration } from '../../server/admin/migrate'
import { createApp } from '../../server/http/app'
import { createRunner } from '../../server/engine'
import { createLogger } from '../../server/logger'
import { startHarness, type Harness } from '../support/harness'

const raw = (sql: string): CompiledQuery => ({ template: 'test.raw', sql, params: {} })

describe('guardrails, migrations and ops', () => {
  let h: Harness

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '3', QUARRY_RATE_WINDOW_MS: '60000' } })
  })
  after(() => h.close())

  it('runs every statement read-only', async () => {
    await assert.rejects(h.runner.run(raw("INSERT INTO projects (id) SELECT 'x'")), /readonly|not supported/i)
    await assert.rejects(h.runner.run(raw('DROP TABLE events')), /readonly|not supported/i)
    const { rows } = await h.runner.run<{ n: number }>(raw('SELECT count() AS n FROM projects'))
    assert.deepEqual(rows, [{ n: 0 }])
  })

  it('stops a statement at the time limit with a typed timeout', async () => {
    const quick = createRunner(h.engine, { ...h.config, maxExecutionSeconds: 1 })
    await assert.rejects(
      quick.run(raw('SELECT sleepEachRow(0.5) FROM numbers(10) SETTINGS max_block_size = 1')),
      (error: unknown) => error instanceof QueryError && error.code === 'timeout',
    )
  })

  it('caps result rows', async () => {
    const capped = createRunner(h.engine, { ...h.config, maxResultRows: 10 })
    const tooMany = (error: unknown) => error instanceof QueryError && error.code === 'too_costly'
    await assert.rejects(capped.run(raw('SELECT number FROM numbers(1000)')), tooMany)
    await assert.rejects(
      capped.run(raw('SELECT number FROM numbers(8) UNION ALL SELECT number FROM numbers(8)')),
      tooMany,
      'a top-level UNION ALL is capped as a whole',
    )
  })

  it('never hands the partial output of a failed statement to the next one', async () => {
    const failing = raw('SELECT throwIf(number = 5) AS boom FROM numbers(10) SETTINGS max_block_size = 1')
    const next = raw("SELECT 'mine' AS x")
    const [failed, answered] = await Promise.allSettled([h.runner.run(failing), h.runner.run(next)])
    assert.equal(failed.status, 'rejected')
    assert.deepEqual(answered.status === 'fulfilled' && answered.value.rows, [{ x: 'mine' }])
    assert.deepEqual((await h.runner.run(next)).rows, [{ x: 'mine' }])
  })

  it('leaves the connection writable for the CLI after gateway queries', async () => {
    await createProject(h.engine, { id: 'after-reads' })
  })

  it('reapplies nothing on a second migrate, and every statement is safe to rerun', async () => {
    assert.deepEqual(await migrate(h.engine), [])
    for (const migration of listMigrations()) {
      for (const statement of renderMigration(migration.text, { database: 'default' })) await h.engine.client.command({ query: statement })
    }
    const tables = await h.engine.client
      .query({ query: 'SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name', format: 'JSONEachRow' })
      .then((rs) => rs.json<{ name: string }>())
    assert.deepEqual(
      tables.map((t) => t.name),
      [
        'api_clients',
        'compaction_claims',
        'compaction_lease',
        'event_names',
        'event_names_mv',
        'event_property_keys',
        'event_property_keys_mv',
        'event_property_values',
        'event_property_values_mv',
        'events',
        'groups',
        'page_rollup',
        'page_rollup_stage',
        'page_views_settled',
        'page_views_settled_stage',
        'profiles',
        'projects',
        'quarry_migrations',
        'session_compactions',
        'session_rollup',
        'session_rollup_stage',
        'sessions',
        'sessions_mv',
        'sessions_settled',
        'sessions_settled_stage',
      ],
    )
    const applied = await h.engine.client
      .query({ query: 'SELECT count() AS n FROM quarry_migrations', format: 'JSONEachRow' })
      .then((rs) => rs.json())
    assert.deepEqual(applied, [{ n: listMigrations().length }])
  })

  it('caps the queries one client has in flight, with 429 and Retry-After', async () => {
    await createProject(h.engine, { id: 'capped' })
    const c = await createApiClient(h.engine, { type: 'read', projectId: 'capped' })
    const other = await createApiClient(h.engine, { type: 'read', projectId: 'capped' })
    const headers = (x: { id: string; secret: string }) => ({ 'openpanel-client-id': x.id, 'openpanel-client-secret': x.secret })
    const run = h.runner.run.bind(h.runner)
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    let held = 0
    // Hold data queries (not the auth look-ups) until released, so requests stay in flight.
    h.runner.run = (async (query, options) => {
      if (query.template.startsWith('insights.')) {
        held += 1
        await gate
      }
      return run(query, options)
    }) as typeof run
    try {
      const app = createApp({
        config: { ...h.config, maxConcurrentQueries: 1, rateLimit: { requests: 1000, windowMs: 60_000 } },
        runner: h.runner,
        directory: h.directory,
        logger: createLogger('error', true),
      })
      const first = request(app)
        .get('/insights/capped/live')
        .set(headers(c))
        .then((res) => res)
      while (held < 1) await new Promise((resolve) => setTimeout(resolve, 10))
      const second = await request(app).get('/insights/capped/live').set(headers(c))
      assert.equal(second.status, 429)
      assert.equal(second.headers['retry-after'], '1')
      const third = request(app)
        .get('/insights/capped/live')
        .set(headers(other))
        .then((res) => res)
      while (held < 2) await new Promise((resolve) => setTimeout(resolve, 10))
      release()
      assert.equal((await first).status, 200)
      assert.equal((await third).status, 200, 'another client is not capped by the first')
      await request(app).get('/insights/capped/live').set(headers(c)).expect(200)
    } finally {
      h.runner.run = run
      release()
    }
  })

  it('rate-limits each client with 429 and Retry-After', async () => {
    await createProject(h.engine, { id: 'limited' })
    const a = await createApiClient(h.engine, { type: 'read', projectId: 'limited' })
    const b = await createApiClient(h.engine, { type: 'read', projectId: 'limited' })
    const get = (c: { id: string; secret: string }) =>
      request(h.app).get('/insights/limited/live').set({ 'openpanel-client-id': c.id, 'openpanel-client-secret': c.secret })
    for (let i = 0; i < 3; i += 1) await get(a).expect(200)
    const limited = await get(a).expect(429)
    assert.ok(Number(limited.headers['retry-after']) >= 1)
    assert.equal(limited.body.error, 'Too Many Requests')
    await get(b).expect(200)
  })
})
