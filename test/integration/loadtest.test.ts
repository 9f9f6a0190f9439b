// The load-test kit against a gateway listening on loopback for a few seconds: the report's shape, per-route
// counts that add up to the total, the exit codes of objectives and comparisons, and the refusal of a
// target that is not on this machine.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { EXIT, main } from '../../loadtest/cli'
import type { LoadReport } from '../../loadtest/report-shape'
import { createApiClient, createProject } from '../../server/admin/control'
import { seedProject } from '../../server/admin/seed'
import { createApp } from '../../server/http/app'
import { createMetrics } from '../../server/http/metrics'
import { startMetricsServer, type MetricsServer } from '../../server/http/metrics-server'
import { createLogger } from '../../server/logger'
import { startHarness, type Harness } from '../support/harness'

const ROOT = path.join(__dirname, '..', '..')

function collector() {
  let text = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk)
      done()
    },
  })
  return { stream, text: () => text }
}

describe('load-test kit (npm run loadtest)', function () {
  this.timeout(120_000)
  let h: Harness
  let server: Server
  let metricsServer: MetricsServer
  let url: string
  let credentials: NodeJS.ProcessEnv
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-loadtest-'))

  before(async () => {
    // The export run's three connections may all hold a stream at once: the per-client stream limit is
    // raised past them, so that the kit, not that limit (tested with the export routes), is what runs here.
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_MAX_STREAMS_PER_CLIENT: '3' } })
    await createProject(h.engine, { id: 'shop', timezone: 'Europe/Berlin' })
    await seedProject(h.engine, { projectId: 'shop', events: 5_000, days: 10, seed: 7, end: new Date() })
    const client = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    credentials = { QUARRY_CLIENT_ID: client.id, QUARRY_CLIENT_SECRET: client.secret }
    const metrics = createMetrics()
    metricsServer = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0 })
    const app = createApp({ config: h.config, runner: h.runner, directory: h.directory, logger: createLogger('error', true), metrics })
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
    })
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await metricsServer.close()
    await h.close()
    fs.rmSync(out, { recursive: true, force: true })
  })

  const run = async (args: string[]) => {
    const stdout = collector()
    const stderr = collector()
    const code = await main([...args, '--url', url, '--metrics-url', `http://127.0.0.1:${metricsServer.port}/metrics`], {
      env: credentials,
      out: stdout.stream,
      err: stderr.stream,
    })
    return { code, out: stdout.text(), err: stderr.text() }
  }
  const readReport = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')) as LoadReport

  // Runs end at a request count (with a duration as a bound), so that the seeded draws, not the machine's
  // speed, decide which routes a run meets.
  it('runs the dashboard and writes a report whose routes add up to the total', async () => {
    const dir = path.join(out, 'dashboard')
    const { code, out: printed } = await run([
      '--scenario',
      'dashboard',
      '--amount',
      '64',
      '--duration',
      '100',
      '--connections',
      '4',
      '--out',
      dir,
      '--slo',
      'p99<60s,errors<1%',
    ])
    assert.equal(code, EXIT.ok, printed)
    const report = readReport(dir)
    assert.equal(report.format, 1)
    assert.deepEqual(report.scenario.name, 'dashboard')
    assert.equal(report.target.projectId, 'shop')
    assert.match(report.target.firstDay, /^\d{4}-\d\d-\d\d$/)
    assert.deepEqual(Object.keys(report.routes).sort(), [
      'browser',
      'chart',
      'country',
      'device',
      'live',
      'metrics',
      'pages',
      'referrer_name',
    ])
    const routes = Object.values(report.routes)
    assert.equal(report.overall.requests, 64)
    assert.equal(
      routes.reduce((total, route) => total + route.requests, 0),
      report.overall.requests,
    )
    assert.equal(
      routes.reduce((total, route) => total + route.bytes, 0),
      report.overall.bytes,
    )
    for (const [name, route] of Object.entries(report.routes)) {
      assert.equal(
        Object.values(route.statuses).reduce((total, count) => total + count, 0),
        route.requests,
        name,
      )
      assert.deepEqual(Object.keys(route.statuses), ['200'], `${name}: ${JSON.stringify(route.statuses)}`)
      for (const key of ['p50', 'p90', 'p99', 'p99_9'] as const)
        assert.ok(route.latency[key] >= 0 && route.latency[key] <= route.latency.max, `${name} ${key}`)
      assert.ok(route.latency.p50 <= route.latency.p99, name)
    }
    assert.ok(report.overall.latency.p50 <= report.overall.latency.p99_9)
    assert.deepEqual(
      report.slo.map((slo) => [slo.objective, slo.met]),
      [
        ['p99<60s', true],
        ['errors<1%', true],
      ],
    )
    assert.ok(report.gateway, 'the metrics listener was scraped')
    assert.ok(report.gateway.http.count >= report.overall.requests, `gateway counted ${report.gateway.http.count}`)
    assert.ok(report.gateway.cache.hits + report.gateway.cache.misses > 0)
    const markdown = fs.readFileSync(path.join(dir, 'report.md'), 'utf8')
    assert.match(markdown, /\| route \| requests \| req\/s \| p50 ms \| p90 ms \| p99 ms \| p99\.9 ms \|/)
    assert.match(markdown, /\| overall \| \d+ \|/)
    assert.match(markdown, /!\[latency by route\]\(latency\.svg\)/)
    const svg = fs.readFileSync(path.join(dir, 'latency.svg'), 'utf8')
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    assert.match(svg, /referrer_name/)
    assert.match(printed, /│ overall/)
  })

  it('exits 1 and names the objective an impossible SLO misses', async () => {
    const dir = path.join(out, 'missed')
    const { code, out: printed } = await run([
      '--scenario',
      'dashboard-cold',
      '--amount',
      '40',
      '--connections',
      '2',
      '--out',
      dir,
      '--slo',
      'p99<1ms,errors<50%',
    ])
    assert.equal(code, EXIT.missed)
    assert.match(printed, /MISSED: p99<1ms/)
    assert.match(printed, /met: errors<50%/)
    assert.match(printed, /Objective\(s\) missed: p99<1ms\n/)
    assert.deepEqual(
      readReport(dir).slo.map((slo) => slo.met),
      [false, true],
    )
  })

  it('walks export pages by their cursors and reports rows per second for pages and streams', async () => {
    const dir = path.join(out, 'export')
    const { code, out: printed } = await run([
      '--scenario',
      'export',
      '--amount',
      '24',
      '--duration',
      '100',
      '--connections',
      '3',
      '--out',
      dir,
    ])
    assert.equal(code, EXIT.ok, printed)
    const report = readReport(dir)
    assert.deepEqual(Object.keys(report.routes).sort(), ['csv stream', 'ndjson stream', 'page walk'])
    for (const [name, route] of Object.entries(report.routes)) {
      assert.deepEqual(Object.keys(route.statuses), ['200'], `${name}: ${JSON.stringify(route.statuses)}`)
      assert.ok((route.rows ?? 0) > 0 && (route.rowsPerSecond ?? 0) > 0, name)
    }
    assert.equal(
      report.overall.rows,
      Object.values(report.routes).reduce((total, route) => total + (route.rows ?? 0), 0),
    )
    // 200 rows a page: a walk that followed its cursors read more rows than it had first pages.
    assert.ok((report.routes['page walk'].rows ?? 0) > report.routes['page walk'].requests * 100)
  })

  it('compares two reports: the changes always, exit 1 past --max-regression', async () => {
    const dir = path.join(out, 'base')
    assert.equal((await run(['--scenario', 'breakdowns', '--amount', '60', '--connections', '2', '--out', dir])).code, EXIT.ok)
    const base = path.join(dir, 'report.json')
    const same = await run(['--compare', base, base])
    assert.equal(same.code, EXIT.ok, same.err)
    assert.match(same.out, /\| overall \| .* \(\+0\.0%\)/)
    assert.match(same.out, /No route's p50 or p99 grew past 10%/)
    const slower = readReport(dir)
    const route = Object.keys(slower.routes)[0]
    slower.routes[route].latency.p99 = slower.routes[route].latency.p99 * 2 + 10
    const slowerFile = path.join(out, 'slower.json')
    fs.writeFileSync(slowerFile, JSON.stringify(slower))
    const regressed = await run(['--compare', base, slowerFile, '--max-regression', '10%'])
    assert.equal(regressed.code, EXIT.missed)
    assert.match(regressed.out, new RegExp(`Regressed past 10% \\(p50 or p99\\): ${route}\\n`))
    const compared = await run([
      '--scenario',
      'breakdowns',
      '--amount',
      '60',
      '--connections',
      '2',
      '--out',
      path.join(out, 'again'),
      '--compare',
      base,
      '--max-regression',
      '100000%',
    ])
    assert.equal(compared.code, EXIT.ok, compared.out)
    assert.match(compared.out, new RegExp(`Against ${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`))
    assert.equal(readReport(path.join(out, 'again')).comparison?.against, base)
  })

  it('stops at the duration or the request count, whichever comes first', async () => {
    const byDuration = path.join(out, 'by-duration')
    assert.equal((await run(['--scenario', 'dashboard', '--duration', '2', '--amount', '1000000', '--out', byDuration])).code, EXIT.ok)
    assert.ok(readReport(byDuration).overall.requests < 1_000_000)
    const byCount = path.join(out, 'by-count')
    assert.equal(
      (await run(['--scenario', 'dashboard', '--duration', '600', '--amount', '3', '--connections', '8', '--out', byCount])).code,
      EXIT.ok,
    )
    assert.equal(readReport(byCount).overall.requests, 3)
  })

  it("refuses, before any figure, a run the gateway's default rate limit would answer mostly with 429", async () => {
    const config = { ...h.config, rateLimit: { requests: 100, windowMs: 10_000 } }
    const limited = createApp({ config, runner: h.runner, directory: h.directory, logger: createLogger('error', true) })
    const listening = await new Promise<Server>((resolve) => {
      const started = limited.listen(0, '127.0.0.1', () => resolve(started))
    })
    try {
      const dir = path.join(out, 'limited')
      const stdout = collector()
      const stderr = collector()
      const limitedUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
      const code = await main(['--url', limitedUrl, '--scenario', 'dashboard', '--duration', '30', '--out', dir, '--slo', 'p99<60s'], {
        env: credentials,
        out: stdout.stream,
        err: stderr.stream,
      })
      assert.equal(code, EXIT.refused)
      assert.match(
        stderr.text(),
        /^loadtest: not starting: the gateway allows this client 100 requests per 10 s .*QUARRY_RATE_LIMIT=8000 or more/,
      )
      assert.equal(stdout.text(), '', 'no figure')
      assert.equal(fs.existsSync(dir), false)
    } finally {
      listening.closeAllConnections()
      await new Promise((resolve) => listening.close(resolve))
    }
  })

  it('refuses a --compare report it cannot read before sending anything', async () => {
    const missing = path.join(out, 'no-such-report.json')
    const refused = await run(['--scenario', 'dashboard', '--compare', missing, '--out', path.join(out, 'never')])
    assert.equal(refused.code, EXIT.refused)
    assert.match(refused.err, /cannot read the report .*no-such-report\.json/)
    assert.equal(fs.existsSync(path.join(out, 'never')), false)
  })

  it('refuses a target that is not on this machine before sending anything', async () => {
    const stderr = collector()
    const code = await main(['--url', 'http://gateway.example.com:3000'], {
      env: { QUARRY_CLIENT_ID: 'x', QUARRY_CLIENT_SECRET: 'y' },
      out: collector().stream,
      err: stderr.stream,
    })
    assert.equal(code, EXIT.refused)
    assert.match(stderr.text(), /refusing to load http:\/\/gateway\.example\.com:3000: it is not on this machine.*--i-own-this-target/)
    // The process itself exits with the same code.
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'loadtest/cli.ts', '--url', 'http://gateway.example.com:3000'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, QUARRY_CLIENT_ID: 'x', QUARRY_CLIENT_SECRET: 'y' },
    })
    assert.equal(child.status, EXIT.refused, child.stderr)
    assert.match(child.stderr, /refusing to load/)
  })

  it('refuses bad options with the usage, and exits 2', async () => {
    const stderr = collector()
    assert.equal(await main(['--scenario', 'nope'], { env: credentials, out: collector().stream, err: stderr.stream }), EXIT.refused)
    assert.match(stderr.text(), /unknown scenario "nope": dashboard, breakdowns, export, dashboard-cold, breakdowns-cold, export-cold/)
    const slo = collector()
    assert.equal(await main(['--slo', 'p42<1ms'], { env: credentials, out: collector().stream, err: slo.stream }), EXIT.refused)
    assert.match(slo.text(), /cannot read objective "p42<1ms"/)
  })
})
