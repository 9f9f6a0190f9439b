import assert from 'node:assert/strict'
import request from 'supertest'
import type { CompiledQuery } from '../../queries/compiled'
import { QueryError } from '../../queries/errors'
import { Runner } from '../../queries/run'
import { createApiClient, createProject } from '../../server/control'
import { listMigrations, migrate, renderMigration } from '../../server/migrate'
import { startHarness, type Harness } from '../support/harness'

const raw = (sql: string): CompiledQuery => ({ template: 'test.raw', sql, params: {} })

describe('guardrails, migrations and ops', function () {
  let h: Harness

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '3', QUARRY_RATE_WINDOW_MS: '60000' } })
  })
  after(() => h.close())

  it('runs every statement read-only', async () => {
    await assert.rejects(h.runner.run(raw("INSERT INTO projects (id) SELECT 'x'")), /readonly/i)
    await assert.rejects(h.runner.run(raw('DROP TABLE events')), /readonly/i)
    const { rows } = await h.runner.run<{ n: number }>(raw('SELECT count() AS n FROM projects'))
    assert.deepEqual(rows, [{ n: 0 }])
  })

  it('stops a statement at the time limit with a typed timeout', async () => {
    const quick = new Runner(h.engine.client, { ...h.config, maxExecutionSeconds: 1 })
    await assert.rejects(
      quick.run(raw('SELECT sleepEachRow(0.5) FROM numbers(10) SETTINGS max_block_size = 1')),
      (error: unknown) => error instanceof QueryError && error.code === 'timeout',
    )
  })

  it('caps result rows', async () => {
    const capped = new Runner(h.engine.client, { ...h.config, maxResultRows: 10 })
    await assert.rejects(capped.run(raw('SELECT number FROM numbers(1000)')), /limit|result rows/i)
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
      .query({ query: "SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name", format: 'JSONEachRow' })
      .then((rs) => rs.json<{ name: string }>())
    assert.deepEqual(
      tables.map((t) => t.name),
      ['api_clients', 'events', 'profiles', 'projects', 'quarry_migrations', 'sessions', 'sessions_mv'],
    )
    const applied = await h.engine.client.query({ query: 'SELECT count() AS n FROM quarry_migrations', format: 'JSONEachRow' }).then((rs) => rs.json())
    assert.deepEqual(applied, [{ n: listMigrations().length }])
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
