// The load-test kit's pure parts: objectives, comparisons, the Prometheus view, loopback targets, seeded
// draws and windows inside the target's days.
import assert from 'node:assert/strict'
import { latencyChart } from '../../loadtest/chart'
import { EXIT, main } from '../../loadtest/cli'
import { compareReports, parsePercent } from '../../loadtest/compare'
import { mostlyRefused, parseRateLimitPolicy, rateLimitProblem } from '../../loadtest/preflight'
import { gatewayView, parseMetrics } from '../../loadtest/prometheus'
import { seededRandom } from '../../loadtest/random'
import { noticeLines } from '../../loadtest/report'
import type { LoadReport } from '../../loadtest/report-shape'
import type { RouteStats } from '../../loadtest/runner'
import { drawWindow } from '../../loadtest/scenarios/scenario'
import { checkSlo, parseSlo } from '../../loadtest/slo'
import { isLoopback, resolveCredentials } from '../../loadtest/target'

function stats(overrides: Partial<RouteStats> & { p50?: number; p99?: number } = {}): RouteStats {
  const { p50 = 10, p99 = 100, ...rest } = overrides
  return {
    requests: 100,
    rps: 50,
    latency: { p50, p90: p99 / 2, p95: p99 / 1.5, p99, p99_9: p99 * 2, max: p99 * 3, mean: p50 },
    statuses: { 200: 100 },
    errors: 0,
    bytes: 1000,
    ...rest,
  }
}

function report(routes: Record<string, RouteStats>): LoadReport {
  return {
    format: 1,
    scenario: { name: 'dashboard', version: 1, description: '' },
    target: { url: 'http://127.0.0.1:3000', projectId: 'p', firstDay: '2026-01-01', lastDay: '2026-01-31' },
    options: { connections: 8, durationSeconds: 10, seed: 1 },
    startedAt: '2026-01-31T00:00:00.000Z',
    seconds: 10,
    overall: stats(),
    routes,
    gateway: null,
    slo: [],
  }
}

describe('load-test kit: objectives', () => {
  it('reads latency, error and throughput objectives and says which are met', () => {
    const objectives = parseSlo('p99<300ms, p50<0.05s,errors<0.1%,rps>40,p99.9<150ms')
    const results = checkSlo(objectives, stats({ p99: 250, errors: 1, statuses: { 200: 99, 500: 1 } }))
    assert.deepEqual(
      results.map((result) => [result.objective, result.actual, result.limit, result.met]),
      [
        ['p99<300ms', 250, 300, true],
        ['p50<0.05s', 10, 50, true],
        ['errors<0.1%', 1, 0.1, false],
        ['rps>40', 50, 40, true],
        ['p99.9<150ms', 500, 150, false],
      ],
    )
  })

  it('refuses an objective it cannot read, naming it', () => {
    assert.throws(() => parseSlo('p99<300ms,latency<1s'), /cannot read objective "latency<1s"/)
    assert.throws(() => parseSlo('p99>300ms'), /cannot read objective "p99>300ms"/)
  })
})

describe('load-test kit: comparisons', () => {
  it('marks the routes whose p50 or p99 grew past the limit, and the routes in only one report', () => {
    const before = report({ a: stats(), b: stats(), gone: stats() })
    const after = report({ a: stats({ p99: 111 }), b: stats({ p50: 12 }), added: stats() })
    const comparison = compareReports(before, after, { against: 'old.json', maxRegressionPercent: parsePercent('10%') })
    assert.deepEqual(comparison.regressed, ['a', 'b'])
    assert.deepEqual(comparison.routes.find((route) => route.route === 'a')?.p99, { before: 100, after: 111, change: 11 })
    assert.deepEqual([comparison.onlyBefore, comparison.onlyAfter], [['gone'], ['added']])
    assert.deepEqual(compareReports(before, after, { against: 'old.json', maxRegressionPercent: 25 }).regressed, [])
    assert.equal(comparison.scenarioChange, undefined)
  })

  it('says when the two reports ran different scenarios', () => {
    const cold = { ...report({}), scenario: { name: 'dashboard-cold', version: 1, description: '' } }
    assert.equal(
      compareReports(report({}), cold, { against: 'old.json', maxRegressionPercent: 10 }).scenarioChange,
      'dashboard v1 -> dashboard-cold v1',
    )
  })
})

describe('load-test kit: the gateway view', () => {
  const scrapeOf = (http: [number, number], engine: [number, number], hits: number, misses: number) =>
    parseMetrics(
      [
        '# HELP quarry_http_request_duration_seconds x',
        `quarry_http_request_duration_seconds_sum{method="GET",route="/insights/:projectId/metrics",status="200"} ${http[0]}`,
        `quarry_http_request_duration_seconds_count{method="GET",route="/insights/:projectId/metrics",status="200"} ${http[1]}`,
        `quarry_statement_duration_seconds_sum{template="insights.metrics",outcome="ok"} ${engine[0]}`,
        `quarry_statement_duration_seconds_count{template="insights.metrics",outcome="ok"} ${engine[1]}`,
        `quarry_cache_lookups_total{result="hit"} ${hits}`,
        `quarry_cache_lookups_total{result="miss"} ${misses}`,
      ].join('\n'),
    )

  it('reads the difference between two scrapes', () => {
    const view = gatewayView('http://127.0.0.1:9464/metrics', scrapeOf([1, 10], [0.5, 5], 2, 8), scrapeOf([3, 30], [1.5, 15], 12, 18))
    assert.deepEqual(view.http, { count: 20, seconds: 2, meanMs: 100 })
    assert.deepEqual(view.engine, { count: 10, seconds: 1, meanMs: 100 })
    assert.equal(view.queueWait, undefined)
    assert.deepEqual(view.cache, { hits: 10, misses: 10, hitRate: 0.5 })
  })
})

describe('load-test kit: targets and draws', () => {
  it('takes loopback addresses only as this machine', () => {
    for (const url of ['http://127.0.0.1:3000', 'http://localhost:3000', 'http://127.8.9.10', 'http://[::1]:3000'])
      assert.equal(isLoopback(url), true, url)
    for (const url of ['http://10.0.0.1:3000', 'http://gateway.example.com', 'http://128.0.0.1', 'http://localhost.example.com'])
      assert.equal(isLoopback(url), false, url)
  })

  it('draws the same requests from the same seed, and windows inside the target days', () => {
    const target = { projectId: 'p', firstDay: '2026-01-10', lastDay: '2026-02-05' }
    const draw = (seed: number) => {
      const random = seededRandom(seed)
      return Array.from({ length: 200 }, () => drawWindow(target, random, [1, 7, 30]))
    }
    assert.deepEqual(draw(3), draw(3))
    assert.notDeepEqual(draw(3), draw(4))
    for (const window of draw(5)) {
      assert.ok(
        window.startDate >= target.firstDay && window.endDate <= target.lastDay && window.startDate <= window.endDate,
        JSON.stringify(window),
      )
    }
  })

  it("warns when the gateway's limits answered most requests", () => {
    assert.deepEqual(noticeLines(stats()), [])
    assert.match(noticeLines(stats({ statuses: { 200: 40, 429: 60 }, errors: 60 }))[0], /^60% of the answers were 429: .*QUARRY_RATE_LIMIT/)
  })
})

describe('load-test kit: a run that tells the truth', () => {
  it("reads the gateway's advertised rate limit (RateLimit-Policy)", () => {
    assert.deepEqual(parseRateLimitPolicy('100;w=10'), { limit: 100, windowSeconds: 10 })
    assert.equal(parseRateLimitPolicy(null), undefined)
    assert.equal(parseRateLimitPolicy('soon'), undefined)
  })

  it('refuses, before the run, a run the rate limit would answer mostly with 429', () => {
    const policy = { limit: 100, windowSeconds: 10 }
    // Closed loop: 8 connections may each send 100 a second (a 429 or a cached answer takes a few ms).
    assert.match(
      rateLimitProblem(policy, { connections: 8 }) ?? '',
      /allows this client 100 requests per 10 s .* up to 8000 .*QUARRY_RATE_LIMIT=8000 .*--rate 10/,
    )
    assert.equal(rateLimitProblem({ limit: 100_000, windowSeconds: 10 }, { connections: 8 }), undefined)
    assert.equal(rateLimitProblem(policy, { connections: 8, rate: 10 }), undefined, '10 a second fits 100 per 10 s')
    assert.match(rateLimitProblem(policy, { connections: 8, rate: 11 }) ?? '', /up to 110 /)
  })

  it('calls a finished run whose answers were mostly 429 no measure of the gateway', () => {
    assert.equal(mostlyRefused(stats()), undefined)
    assert.equal(mostlyRefused(stats({ statuses: { 200: 50, 429: 50 }, errors: 50 })), undefined, 'half is not most')
    assert.match(
      mostlyRefused(stats({ statuses: { 200: 40, 429: 60 }, errors: 60 })) ?? '',
      /^60% of the answers were 429 .*QUARRY_RATE_LIMIT/,
    )
  })

  it('takes credentials from QUARRY_CLIENT_ID / QUARRY_CLIENT_SECRET, never from the command line', async () => {
    assert.deepEqual(resolveCredentials({ urlGiven: true, env: { QUARRY_CLIENT_ID: 'a', QUARRY_CLIENT_SECRET: 'b' } }), {
      clientId: 'a',
      clientSecret: 'b',
      source: 'QUARRY_CLIENT_ID / QUARRY_CLIENT_SECRET',
    })
    let err = ''
    const sink = { write: (text: string) => void (err += text) } as unknown as NodeJS.WritableStream
    const code = await main(['--client-id', 'a', '--client-secret', 'b'], { env: {}, out: sink, err: sink })
    assert.equal(code, EXIT.refused)
    assert.match(err, /--client-secret puts the secret on the command line.*QUARRY_CLIENT_SECRET/)
  })

  it('draws each latency objective as a line and marks the routes whose answers were mostly errors', () => {
    const limited = stats({ requests: 100, statuses: { 200: 10, 429: 90 }, errors: 90 })
    const drawn = report({ metrics: stats(), pages: limited })
    drawn.slo = [
      { objective: 'p99<300ms', actual: 100, limit: 300, unit: 'ms', met: true },
      { objective: 'errors<1%', actual: 0, limit: 1, unit: '%', met: true },
    ]
    const svg = latencyChart(drawn)
    assert.match(svg, /p99&lt;300ms|p99<300ms/)
    assert.match(svg, /pages \(90% errors: 429\)/)
    assert.doesNotMatch(svg, /metrics \(/)
    assert.doesNotMatch(svg, /errors&lt;1%|errors<1%/, 'only latency objectives are lines')
  })
})
