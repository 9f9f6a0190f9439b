// Prometheus metrics without an engine: the text parser the scrape tests rely on refuses what a
// scraper would, each app's registry is its own, requests are labelled by route pattern, statements by
// template and outcome, the queue only once a scheduler reports it; the listener and its settings.
import assert from 'node:assert/strict'
import express from 'express'
import request from 'supertest'
import { ConfigError, loadConfig } from '../../server/config'
import { createMetrics } from '../../server/http/metrics'
import { startMetricsServer } from '../../server/http/metrics-server'
import { parsePrometheusText, sampleValue } from '../support/prometheus-text'

async function scrape(metrics: ReturnType<typeof createMetrics>) {
  return parsePrometheusText(await metrics.registry.metrics())
}

describe('Prometheus text parser (test support)', () => {
  it('reads families, labels with escapes, and histogram series', () => {
    const families = parsePrometheusText(
      [
        '# HELP up_total Ups.',
        '# TYPE up_total counter',
        'up_total{a="x\\"y\\\\z\\n",b="2"} 3',
        '# TYPE t histogram',
        't_bucket{le="0.5"} 1',
        't_bucket{le="+Inf"} 2',
        't_sum 0.7',
        't_count 2',
        '',
      ].join('\n'),
    )
    assert.deepEqual(families.get('up_total'), {
      name: 'up_total',
      type: 'counter',
      help: 'Ups.',
      samples: [{ name: 'up_total', labels: { a: 'x"y\\z\n', b: '2' }, value: 3 }],
    })
    assert.equal(sampleValue(families, 't_bucket', { le: '+Inf' }), 2)
    assert.equal(families.get('t')?.samples.length, 4)
  })

  const broken: [string, string][] = [
    ['no final newline', 'a 1'],
    ['a bad metric name', '1a 1\n'],
    ['an unquoted label value', 'a{b=c} 1\n'],
    ['a bad escape', 'a{b="\\t"} 1\n'],
    ['a value that is not a number', 'a one\n'],
    ['a series twice', 'a{b="1"} 1\na{b="1"} 2\n'],
    ['an unknown type', '# TYPE a meter\na 1\n'],
    ['a sample outside its histogram suffixes', '# TYPE h histogram\nh 1\n'],
    ['buckets that are not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n'],
    ['no +Inf bucket', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_count 1\n'],
    ['a _count unlike the +Inf bucket', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 1\n'],
  ]
  for (const [problem, text] of broken) {
    it(`refuses ${problem}`, () => {
      assert.throws(() => parsePrometheusText(text))
    })
  }
})

describe('metrics', () => {
  it('keeps a registry per instance, with the default process metrics in each', async () => {
    const one = createMetrics()
    const other = createMetrics()
    one.exportRows(5)
    assert.equal(sampleValue(await scrape(one), 'quarry_export_rows_streamed_total'), 5)
    const untouched = await scrape(other)
    assert.equal(sampleValue(untouched, 'quarry_export_rows_streamed_total'), 0)
    assert.equal(untouched.get('process_cpu_user_seconds_total')?.type, 'counter')
    assert.equal(untouched.get('nodejs_heap_size_total_bytes')?.type, 'gauge')
  })

  it('labels requests with the route pattern and status, never the raw URL', async () => {
    const metrics = createMetrics()
    const app = express()
    app.use(metrics.requestMiddleware)
    app.get('/insights/:projectId/metrics', (req, res) => {
      res.status(req.query.fail ? 500 : 200).json({})
    })
    await request(app).get('/insights/secret-project/metrics?range=7d').expect(200)
    await request(app).get('/insights/secret-project/metrics?fail=1').expect(500)
    await request(app).get('/insights/secret-project/metrics').expect(200)
    await request(app).get('/no/such/secret-path').expect(404)
    const families = await scrape(metrics)
    const route = '/insights/:projectId/metrics'
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { method: 'GET', route, status: '200' }), 2)
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { method: 'GET', route, status: '500' }), 1)
    assert.equal(sampleValue(families, 'quarry_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1)
    assert.equal(sampleValue(families, 'quarry_http_request_duration_seconds_count', { route, status: '200' }), 2)
    assert.equal(sampleValue(families, 'quarry_http_request_duration_seconds_bucket', { route, status: '500', le: '+Inf' }), 1)
    assert.doesNotMatch(await metrics.registry.metrics(), /secret/)
  })

  it('times statements by template and outcome, and sums rows and bytes read only when reported', async () => {
    const metrics = createMetrics()
    const { statementFinished } = metrics.statementObserver
    statementFinished({
      template: 'insights.metrics',
      lane: 'data',
      durationMs: 40,
      queueWaitMs: 0,
      readRows: 1000,
      readBytes: 64_000,
      outcome: 'ok',
    })
    statementFinished({
      template: 'insights.metrics',
      lane: 'data',
      durationMs: 2000,
      queueWaitMs: 0,
      readRows: 500,
      readBytes: 32_000,
      outcome: 'ok',
    })
    statementFinished({ template: 'insights.pages', lane: 'data', durationMs: 15_000, queueWaitMs: 0, outcome: 'timeout' })
    metrics.statementObserver.statementStopped?.({ template: 'insights.pages', lane: 'data', ranMs: 15_030, overrunMs: 30 })
    const families = await scrape(metrics)
    assert.equal(sampleValue(families, 'quarry_statement_overrun_seconds_count', { template: 'insights.pages' }), 1)
    assert.equal(sampleValue(families, 'quarry_statement_overrun_seconds_sum', { template: 'insights.pages' }), 0.03)
    const ok = { template: 'insights.metrics', outcome: 'ok' }
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_count', ok), 2)
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_sum', ok), 2.04)
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_bucket', { ...ok, le: '0.05' }), 1)
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_bucket', { ...ok, le: '2.5' }), 2)
    assert.equal(sampleValue(families, 'quarry_statement_duration_seconds_count', { template: 'insights.pages', outcome: 'timeout' }), 1)
    assert.equal(sampleValue(families, 'quarry_engine_read_rows_total', { template: 'insights.metrics' }), 1500)
    assert.equal(sampleValue(families, 'quarry_engine_read_bytes_total', { template: 'insights.metrics' }), 96_000)
    assert.throws(() => sampleValue(families, 'quarry_engine_read_rows_total', { template: 'insights.pages' }), /found 0/)
  })

  it('has queue metrics only once a scheduler reports its queue', async () => {
    const metrics = createMetrics()
    metrics.statementObserver.statementFinished({ template: 'a', lane: 'data', durationMs: 1, queueWaitMs: 300, outcome: 'ok' })
    assert.equal((await scrape(metrics)).has('quarry_engine_queue_depth'), false)
    let depth = 3
    metrics.trackQueue(
      () => depth,
      () => 2,
    )
    metrics.statementObserver.statementFinished({ template: 'a', lane: 'data', durationMs: 1, queueWaitMs: 300, outcome: 'ok' })
    let families = await scrape(metrics)
    assert.equal(sampleValue(families, 'quarry_engine_queue_depth'), 3)
    assert.equal(sampleValue(families, 'quarry_engine_statements_in_flight'), 2)
    assert.equal(sampleValue(families, 'quarry_engine_queue_wait_seconds_count', { template: 'a' }), 1)
    assert.equal(sampleValue(families, 'quarry_engine_queue_wait_seconds_sum', { template: 'a' }), 0.3)
    depth = 0
    families = await scrape(metrics)
    assert.equal(sampleValue(families, 'quarry_engine_queue_depth'), 0)
  })

  it('counts auth failures by reason (every reason present from the start) and cache hits and misses', async () => {
    const metrics = createMetrics()
    metrics.authFailure('bad_credentials')
    metrics.authFailure('bad_credentials')
    metrics.cacheLookup(true)
    metrics.cacheLookup(false)
    metrics.cacheLookup(true)
    const families = await scrape(metrics)
    assert.equal(sampleValue(families, 'quarry_auth_failures_total', { reason: 'bad_credentials' }), 2)
    assert.equal(sampleValue(families, 'quarry_auth_failures_total', { reason: 'missing_credentials' }), 0)
    assert.equal(sampleValue(families, 'quarry_auth_failures_total', { reason: 'write_client' }), 0)
    assert.equal(sampleValue(families, 'quarry_cache_lookups_total', { result: 'hit' }), 2)
    assert.equal(sampleValue(families, 'quarry_cache_lookups_total', { result: 'miss' }), 1)
  })
})

describe('metrics listener', () => {
  it('serves GET /metrics in the text format on its own port, and nothing else', async () => {
    const metrics = createMetrics()
    metrics.exportRows(7)
    const server = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0 })
    try {
      const base = `http://127.0.0.1:${server.port}`
      const scraped = await fetch(`${base}/metrics`)
      assert.equal(scraped.status, 200)
      assert.match(scraped.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/)
      assert.equal(sampleValue(parsePrometheusText(await scraped.text()), 'quarry_export_rows_streamed_total'), 7)
      assert.equal((await fetch(`${base}/`)).status, 404)
      assert.equal((await fetch(`${base}/metrics`, { method: 'POST' })).status, 404)
    } finally {
      await server.close()
    }
  })

  it('is on 127.0.0.1:9464 by default; QUARRY_METRICS_HOST and QUARRY_METRICS_PORT (0: off) change it', () => {
    assert.deepEqual(loadConfig({}).metrics, { host: '127.0.0.1', port: 9464 })
    assert.deepEqual(loadConfig({ QUARRY_METRICS_HOST: '0.0.0.0', QUARRY_METRICS_PORT: '0' }).metrics, { host: '0.0.0.0', port: 0 })
    assert.deepEqual(loadConfig({ QUARRY_METRICS_HOST: 'metrics.internal' }).metrics.host, 'metrics.internal')
    const refused: [string, string][] = [
      ['QUARRY_METRICS_PORT', '70000'],
      ['QUARRY_METRICS_PORT', 'nine'],
      ['QUARRY_METRICS_HOST', 'a host'],
      ['QUARRY_METRICS_HOST', 'http://x'],
    ]
    for (const [name, value] of refused) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.setting === name,
      )
    }
  })
})
