// Every request gets one log line, whatever ended it (issue 40, item 6): an answer sent, a client that went
// away, or an export stream cut by the idle timer. Its status agrees with what Prometheus counts.
import assert from 'node:assert/strict'
import http, { type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import winston from 'winston'
import { createApiClient, createProject } from '../../server/admin/control'
import { seedProject } from '../../server/admin/seed'
import { createApp } from '../../server/http/app'
import { createMetrics, type Metrics } from '../../server/http/metrics'
import { createLogger } from '../../server/logger'
import { startHarness, type Harness } from '../support/harness'
import { cutExports as cutExportsOf } from '../support/prometheus-text'

const EXPORT = '/export/events?projectId=demo&format=ndjson'

interface RequestLine {
  message: string
  requestId: string
  path: string
  status: number
  cut?: string
  durationMs: number
}

describe('the request log', function () {
  this.timeout(120_000)
  let h: Harness
  let metrics: Metrics
  let server: Server
  let port: number
  let auth: Record<string, string>
  const lines: RequestLine[] = []

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_STREAM_IDLE_SECONDS: '1' } })
    await createProject(h.engine, { id: 'demo', timezone: 'UTC' })
    // Far more than the sockets between a client and the gateway buffer: a client that reads nothing stalls it.
    await seedProject(h.engine, { projectId: 'demo', events: 100_000, days: 30, seed: 7, end: new Date() })
    const client = await createApiClient(h.engine, { type: 'read', projectId: 'demo' })
    auth = { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
    const logger = createLogger('info', false, 'json')
    const stream = new PassThrough()
    let pending = ''
    stream.on('data', (chunk: Buffer) => {
      pending += chunk.toString()
      const complete = pending.split('\n')
      pending = complete.pop() ?? ''
      for (const text of complete) if (text.trim()) lines.push(JSON.parse(text) as RequestLine)
    })
    logger.clear().add(new winston.transports.Stream({ stream }))
    metrics = createMetrics()
    const app = createApp({ config: h.config, runner: h.runner, directory: h.directory, logger, metrics })
    server = await new Promise<Server>((resolve) => {
      const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening))
    })
    port = (server.address() as AddressInfo).port
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await h.close()
  })

  /** Export requests Prometheus counts as ended before their answer was complete. */
  const cutExports = () => cutExportsOf(metrics.registry)
  const requestLines = (requestId: string) => lines.filter((line) => line.message === 'request' && line.requestId === requestId)
  const until = async (done: () => boolean | Promise<boolean>) => {
    const started = Date.now()
    while (!(await done()) && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 50))
  }

  /** A stream request whose response is not read (paused as soon as its head arrives). */
  const stalled = () =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: EXPORT, headers: auth, agent: false }, (res) => {
          res.pause()
          resolve(res)
        })
        .on('error', reject)
    })

  it('logs an answered request once, with its status, duration and request id', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/insights/demo/live`, { headers: auth })
    assert.equal(res.status, 200)
    const requestId = String(res.headers.get('x-request-id'))
    await until(() => requestLines(requestId).length > 0)
    const [line, ...more] = requestLines(requestId)
    assert.deepEqual(more, [], 'one line')
    assert.deepEqual({ path: line.path, status: line.status, cut: line.cut }, { path: '/insights/demo/live', status: 200, cut: undefined })
    assert.ok(Number.isInteger(line.durationMs) && line.durationMs >= 0)
  })

  it('logs a stream the idle timer cut once, as Prometheus counts it: 499, cut by the idle timer', async () => {
    const before = await cutExports()
    const res = await stalled()
    const requestId = String(res.headers['x-request-id'])
    await until(async () => (await cutExports()) > before && requestLines(requestId).length > 0)
    assert.equal(await cutExports(), before + 1)
    res.destroy()
    await new Promise((resolve) => setTimeout(resolve, 200))
    const found = requestLines(requestId)
    assert.equal(found.length, 1, `one line: ${JSON.stringify(found)}`)
    assert.deepEqual(
      { path: found[0].path, status: found[0].status, cut: found[0].cut },
      { path: '/export/events', status: 499, cut: 'stream_idle' },
    )
    assert.ok(found[0].durationMs >= 1_000, `cut after the idle second: ${found[0].durationMs} ms`)
  })

  it('logs a request its client abandoned once, as Prometheus counts it: 499, closed by the client', async () => {
    const before = await cutExports()
    const res = await stalled()
    const requestId = String(res.headers['x-request-id'])
    res.destroy()
    await until(async () => (await cutExports()) > before && requestLines(requestId).length > 0)
    assert.equal(await cutExports(), before + 1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const found = requestLines(requestId)
    assert.equal(found.length, 1, `one line: ${JSON.stringify(found)}`)
    assert.deepEqual(
      { path: found[0].path, status: found[0].status, cut: found[0].cut },
      { path: '/export/events', status: 499, cut: 'client_closed' },
    )
  })
})
