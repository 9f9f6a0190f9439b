// The Prometheus scrape endpoint, `GET /metrics`, on a listener of its own (QUARRY_METRICS_HOST and
// QUARRY_METRICS_PORT) so that it is never served on the public API port by accident.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Metrics } from './metrics'

export interface MetricsListen {
  host: string
  /** `0` picks a free port (tests); main.ts does not start the listener at all when the setting is 0. */
  port: number
}

export interface MetricsServer {
  /** The port it listens on. */
  port: number
  close(): Promise<void>
}

export async function startMetricsServer(metrics: Pick<Metrics, 'registry'>, listen: MetricsListen): Promise<MetricsServer> {
  const { registry } = metrics
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: scrape GET /metrics\n')
      return
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n'),
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
      }),
  }
}
