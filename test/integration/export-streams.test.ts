// Export streams are bounded per client (issue 31, item 14): one whose client takes none of its bytes
// for QUARRY_STREAM_IDLE_SECONDS is cut, which frees its stream session, and a client may have only
// QUARRY_MAX_STREAMS_PER_CLIENT streams open at once (429 past it) while other clients still get theirs.
import assert from 'node:assert/strict'
import http, { type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApiClient, createProject } from '../../server/admin/control'
import { seedProject } from '../../server/admin/seed'
import { createApp } from '../../server/http/app'
import { createMetrics, type Metrics } from '../../server/http/metrics'
import { createLogger } from '../../server/logger'
import { startHarness, type Harness } from '../support/harness'
import { cutExports as cutExportsOf } from '../support/prometheus-text'

const EXPORT = '/export/events?projectId=demo&format=ndjson'

describe('export streams per client', function () {
  this.timeout(120_000)
  let h: Harness
  let metrics: Metrics
  let server: Server
  let port: number
  let first: Record<string, string>
  let second: Record<string, string>

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_STREAM_IDLE_SECONDS: '1', QUARRY_MAX_STREAMS_PER_CLIENT: '1' } })
    await createProject(h.engine, { id: 'demo', timezone: 'UTC' })
    // Far more than the sockets between a client and the gateway buffer: a client that reads nothing stalls it.
    await seedProject(h.engine, { projectId: 'demo', events: 100_000, days: 30, seed: 7, end: new Date() })
    const headersOf = async () => {
      const client = await createApiClient(h.engine, { type: 'read', projectId: 'demo' })
      return { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
    }
    first = await headersOf()
    second = await headersOf()
    metrics = createMetrics()
    const app = createApp({ config: h.config, runner: h.runner, directory: h.directory, logger: createLogger('error', true), metrics })
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

  /** Export requests the gateway ended before their answer was complete (counted as 499). */
  const cutExports = () => cutExportsOf(metrics.registry)
  const untilCut = async (count: number) => {
    while ((await cutExports()) < count) await new Promise((resolve) => setTimeout(resolve, 50))
  }

  /** A stream request whose response is not read (paused as soon as its head arrives). */
  const stalled = (headers: Record<string, string>) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: EXPORT, headers, agent: false }, (res) => {
          res.pause()
          resolve(res)
        })
        .on('error', reject)
    })

  /** Reads what a stalled response still holds; resolves with whether it was complete. */
  const drained = (res: http.IncomingMessage) =>
    new Promise<boolean>((resolve) => {
      res.once('close', () => resolve(res.complete))
      res.resume()
    })

  /** The status of a stream request, read to its end. */
  const statusOf = (headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: EXPORT, headers, agent: false }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        })
        .on('error', reject)
    })

  it('cuts a stream whose client takes no bytes for the idle time', async () => {
    const res = await stalled(first)
    assert.equal(res.statusCode, 200)
    // Nothing reads: the gateway's writes back up, the idle time runs out, and the gateway ends the request.
    await untilCut(1)
    assert.equal(await drained(res), false, 'the stream was cut, not finished')
  })

  it('refuses a client a stream past its limit with 429, while another client gets one, and frees it when the stream ends', async () => {
    const held = await stalled(first)
    assert.equal(held.statusCode, 200)
    assert.equal(await statusOf(first), 429, 'the first client has its one stream open')
    assert.equal(await statusOf(second), 200, 'the second client gets its own, read to the end')
    await untilCut(2)
    assert.equal(await drained(held), false)
    assert.equal(await statusOf(first), 200, 'once the held stream ended, the first client may open another')
  })
})
