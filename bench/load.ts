// A closed-loop HTTP load generator: `connections` workers each send the next request as soon as the
// previous one answers, for `seconds`; latencies of every request give exact percentiles.
import http from 'node:http'
import { percentile } from './percentile'

export interface LoadResult {
  requests: number
  errors: number
  p50: number
  p95: number
  rps: number
}

function get(url: string, headers: Record<string, string>, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
  })
}

export async function loadTest(options: { url: string; headers: Record<string, string>; connections: number; seconds: number }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies: number[] = []
  let errors = 0
  const started = performance.now()
  const deadline = started + options.seconds * 1000
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      const status = await get(options.url, options.headers, agent).catch(() => 0)
      latencies.push(performance.now() - t0)
      if (status !== 200) errors += 1
    }
  }
  await Promise.all(Array.from({ length: options.connections }, worker))
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  return { requests: latencies.length, errors, p50: percentile(latencies, 50), p95: percentile(latencies, 95), rps: latencies.length / elapsed }
}
