// Prometheus metrics against the embedded engine: the gateway's requests, statements, auth failures and
// export streams show up in a scrape of the metrics listener, parsed as a scraper would; `npm start`
// serves them on their own port and not on the API port.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type express from 'express'
import { request } from '../support/openapi-request'
import type { CompiledQuery } from '../../queries/core/compiled'
import { createRunner } from '../../server/engine'
import { createApp } from '../../server/http/app'
import { createApiClient, createProject } from '../../server/admin/control'
import { Directory } from '../../server/http/directory'
import { createLogger } from '../../server/logger'
import { createMetrics, type Metrics } from '../../server/http/metrics'
import { startMetricsServer, type MetricsServer } from '../../server/http/metrics-server'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { parsePrometheusText, sampleValue } from '../support/prometheus-text'
import { randomEvents } from '../support/random-events'

const PROJECT = { id: 'mproj', timezone: 'Europe/Berlin' }
const EVENTS = randomEvents(91, { sessions: 60, from: new Date('2024-03-01T00:00:00Z'), days: 3 })
const METRICS_ROUTE = '/insights/:projectId/metrics'
const raw = (sql: string): CompiledQuery => ({ template: 'test.raw', sql, params: {} })

describe('Prometheus metrics of a gateway over the embedded engine', () => {
  let h: Harness
  let metrics: Metrics
  let listener: MetricsServer
  let app: express.Express
  let auth: Record<string, string>
  let writer: Record<string, string>

  async function scrape() {
    const res = await fetch(`http://127.0.0.1:${listener.port}/metrics`)
    assert.equal(res.status, 200)
    const text = await res.text()
    return { text, families: parsePrometheusText(text) }
  }

  before(async () => {
    // A long auth cache keeps the count of credential look-ups exact.
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_AUTH_CACHE_MS: '600000' }, now: new Date('2024-03-05T12:00:00Z') })
    await createProject(h.engine, PROJECT)
    await insertRawEvents(h.engine, EVENTS, PROJECT.id)
    auth = await rootHeaders(h.engine)
    const client = await createApiClient(h.engine, { type: 'write', projectId: PROJECT.id })
    writer = { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
    metrics = createMetrics()
    const runner = createRunner(h.engine, h.config, metrics.statementObserver)
    metrics.trackQueue(
      () => runner.queueDepth(),
      () => runner.inFlight(),
    )
    app = createApp({
      config: h.config,
      runner,
      directory: new Directory(runner, h.config.authCacheMs),
      logger: createLogger('error', true),
      clock: () => h.now,
      metrics,
    })
    listener = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await listener.close()
    await h.close()
  })

  it('shows requests by route pattern and status, statements by template, and auth failures by reason', async () => {
    await request(app).get('/insights/mproj/metrics?range=7d').set(auth).expect(200)
    await request(app).get('/insights/mproj/metrics?range=30d').set(auth).expect(200)
    await request(app).get('/insights/mproj/metrics').expect(401)
    await request(app)
      .get('/insights/mproj/metrics')
      .set({ ...auth, 'openpanel-client-secret': 'wrong' })
      .expect(401)
    await request(app).get('/insights/mproj/metrics').set(writer).expect(403)
    await request(app).get('/insights/mproj/no-such-resource').set(auth).expect(404)
    const { text, families } = await scrape()

    const ok = { method: 'GET', route: METRICS_ROUTE, status: '200' }
    assert.equal(sampleValue(families, 'quarry_http_requests_total', ok), 2)
    assert.equal(sampleValue(families, 'quarry_http_request_duration_seconds_count', ok), 2)
    assert.equal(sampleValue(families, 'quarry_http_request_duration_seconds_bucket', { ...ok, le: '+Inf' }), 2)
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { ...ok, status: '401' }), 2)
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { ...ok, status: '403' }), 1)
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { route: 'unmatched', status: '404' }), 1)
    assert.doesNotMatch(text, /mproj/, 'no project id (no raw URL) in any label')

    // Each metrics answer (7 and 30 days: other days, so no check's rows are reused) runs its settled
    // check and its statement, each through the scheduler's queue.
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'insights.metrics', outcome: 'ok' }), 2)
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'insights.settled_days', outcome: 'ok' }), 2)
    assert.equal(sampleValue(families, 'quarry_engine_queue_wait_seconds_count', { template: 'insights.metrics' }), 2)
    assert.equal(sampleValue(families, 'quarry_engine_queue_wait_seconds_count', { template: 'insights.settled_days' }), 2)
    assert.equal(sampleValue(families, 'quarry_engine_queue_depth'), 0)
    assert.equal(sampleValue(families, 'quarry_engine_statements_in_flight'), 0)
    assert.ok(sampleValue(families, 'quarry_statement_duration_seconds_sum', { template: 'insights.metrics', outcome: 'ok' }) > 0)

    assert.equal(sampleValue(families, 'quarry_auth_failures_total', { reason: 'missing_credentials' }), 1)
    assert.equal(sampleValue(families, 'quarry_auth_failures_total', { reason: 'bad_credentials' }), 1)
    assert.equal(sampleValue(families, 'quarry_auth_failures_total', { reason: 'write_client' }), 1)

    // The embedded engine reports each statement's rows and bytes read with its answer.
    assert.ok(sampleValue(families, 'quarry_engine_read_rows_total', { template: 'insights.metrics' }) > 0)
    assert.ok(sampleValue(families, 'quarry_engine_read_bytes_total', { template: 'insights.metrics' }) > 0)
    assert.ok(sampleValue(families, 'process_resident_memory_bytes') > 0)
  })

  it('shows the behaviour questions by route pattern and their statements by template', async () => {
    // Distinct step names run windowFunnel (over the entering groups apart without a breakdown); a `*`
    // step, which one event can match beside another step, the exact fold.
    await request(app).get('/insights/mproj/funnel?steps=screen_view&steps=purchase').set(auth).expect(200)
    await request(app).get('/insights/mproj/funnel?steps=screen_view&steps=purchase&breakdown=country').set(auth).expect(200)
    await request(app).get('/insights/mproj/funnel?steps=*&steps=purchase').set(auth).expect(200)
    await request(app).get('/insights/mproj/funnel?steps=screen_view').set(auth).expect(400)
    await request(app).get('/insights/mproj/retention?period=day&periods=3&detail=true').set(auth).expect(200)
    await request(app).get('/insights/mproj/paths?node=event').set(auth).expect(200)
    const { families } = await scrape()
    for (const [resource, answered] of [
      ['funnel', 3],
      ['retention', 1],
      ['paths', 1],
    ] as const) {
      assert.equal(
        sampleValue(families, 'quarry_http_requests_total', { route: `/insights/:projectId/${resource}`, status: '200' }),
        answered,
        resource,
      )
    }
    for (const template of ['funnel_entries', 'funnel_window', 'funnel', 'retention', 'paths']) {
      assert.equal(
        sampleValue(families, 'quarry_statement_duration_seconds_count', { template: `behaviour.${template}`, outcome: 'ok' }),
        1,
        template,
      )
    }
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { route: '/insights/:projectId/funnel', status: '400' }), 1)
  })

  it('shows the discovery routes by route pattern and their statements by template', async () => {
    await request(app).get('/insights/mproj/events/names?range=7d').set(auth).expect(200)
    await request(app).get('/insights/mproj/events/properties?range=7d&event=purchase').set(auth).expect(200)
    await request(app).get('/insights/mproj/events/property_values?range=7d&key=plan').set(auth).expect(200)
    await request(app).get('/insights/mproj/events/property_values?range=7d').set(auth).expect(400)
    const { families } = await scrape()
    // OpenPanel's key list (the default shape of /events/properties) is a row per key and event name.
    for (const [resource, template] of [
      ['names', 'names'],
      ['properties', 'property_pairs'],
      ['property_values', 'property_values'],
    ]) {
      assert.equal(
        sampleValue(families, 'quarry_http_requests_total', { route: `/insights/:projectId/events/${resource}`, status: '200' }),
        1,
        resource,
      )
      assert.equal(
        sampleValue(families, 'quarry_statement_duration_seconds_count', { template: `insights.events_${template}`, outcome: 'ok' }),
        1,
        resource,
      )
    }
    assert.equal(
      sampleValue(families, 'quarry_http_requests_total', { route: '/insights/:projectId/events/property_values', status: '400' }),
      1,
    )
  })

  it('counts every row an NDJSON or CSV export streams', async () => {
    const before = sampleValue((await scrape()).families, 'quarry_export_rows_streamed_total')
    const ndjson = await request(app).get('/export/events?projectId=mproj&format=ndjson').set(auth).expect(200)
    assert.equal(ndjson.text.split('\n').filter(Boolean).length, EVENTS.length)
    const csv = await request(app).get('/export/events?projectId=mproj&format=csv').set(auth).expect(200)
    assert.equal(csv.text.split('\r\n').filter(Boolean).length, EVENTS.length + 1, 'a header and every event')
    const { families } = await scrape()
    assert.equal(sampleValue(families, 'quarry_export_rows_streamed_total') - before, 2 * EVENTS.length)
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { route: '/export/events', status: '200' }), 2)
    // Each export is one statement read a block at a time, each read observed as a statement's turn: the
    // read of its one block and the read that finds the end.
    assert.equal(
      sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'export.events', outcome: 'ok' }),
      2,
      'the NDJSON reads',
    )
    assert.equal(
      sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'export.events-csv-lines', outcome: 'ok' }),
      2,
      'the CSV reads, written by the engine',
    )
  })

  it('labels a statement that failed, was cancelled or ran out of time by its outcome', async () => {
    const observed = createRunner(h.engine, h.config, metrics.statementObserver)
    await assert.rejects(observed.run(raw('SELECT throwIf(1) AS boom')))
    await assert.rejects(observed.run(raw('SELECT 1'), { signal: AbortSignal.abort() }))
    const quick = createRunner(h.engine, { ...h.config, maxExecutionSeconds: 1 }, metrics.statementObserver)
    await assert.rejects(quick.run(raw('SELECT sleepEachRow(0.5) FROM numbers(10) SETTINGS max_block_size = 1')), /time limit/)
    const { families } = await scrape()
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'test.raw', outcome: 'error' }), 1)
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'test.raw', outcome: 'cancelled' }), 1)
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'test.raw', outcome: 'timeout' }), 1)
  })
})

describe('npm start with QUARRY_METRICS_PORT', function () {
  this.timeout(300_000)
  const ROOT = path.join(__dirname, '..', '..')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-metrics-'))
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('serves /metrics on 127.0.0.1 at its own port, not on the API port, and stops with the gateway', async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000)
    const metricsPort = port + 1
    const env = {
      ...process.env,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      QUARRY_DATA_DIR: dir,
      QUARRY_DEMO_EVENTS: '0',
      PORT: String(port),
      QUARRY_METRICS_PORT: String(metricsPort),
    }
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'main.ts')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    try {
      const deadline = Date.now() + 120_000
      while (!/Quarry listening on/.test(output)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the gateway did not start:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200)
      assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`)).status, 404, 'the API port does not serve metrics')
      const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      assert.equal(scraped.status, 200)
      const families = parsePrometheusText(await scraped.text())
      assert.equal(sampleValue(families, 'quarry_http_requests_total', { route: '/health', status: '200' }), 1)
      assert.equal(sampleValue(families, 'quarry_http_requests_total', { route: 'unmatched', status: '404' }), 1)
      child.kill('SIGTERM')
      assert.equal(await exited, 0)
    } finally {
      child.kill('SIGKILL')
    }
  })
})
