// `npm run bench -- fuzz`: 10,000 seeded requests against the gateway in a child process over the golden
// data: junk for every parameter of every route (the bad-input test's generator), and one in five a valid
// chart that differs from others only in what its shaping reads (formulas, names), asked as it comes and
// then fresh (`Cache-Control: no-cache`), and one in five a valid funnel, retention, paths or tree question
// drawn up to its caps (fuzz-caps.ts). Prints the count of each status; passes with no 5xx but 503/504, no
// crash, and no cached answer that differs from the same request's fresh one.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../server/config'
import { openEngine } from '../server/engine'
import { migrate } from '../server/admin/migrate'
import { ROUTES } from '../server/routes/routes'
import { cacheProbes, junkRequests } from '../test/support/fuzz'
import { loadGolden } from '../test/support/harness'
import { cappedRequests } from './fuzz-caps'
import { startGateway } from './gateway'

const REQUESTS = Number(process.env.QUARRY_FUZZ_REQUESTS ?? 10_000)
const WORKERS = 4
const PORT = Number(process.env.QUARRY_BENCH_PORT ?? 3998)
const REQUEST_TIMEOUT_MS = 60_000
/** One request in this many is a cache probe, and one in as many a question up to its caps. */
const PROBE_EVERY = 5
/** Windows of the golden shop's data, so that probes share statements and their answers hold numbers. */
const PROBE_WINDOWS = [
  { startDate: '2024-03-27', endDate: '2024-04-02' },
  { startDate: '2024-03-30', endDate: '2024-03-31' },
]

/** A fresh data directory holding the golden projects, and a root client's headers. */
async function prepareGolden(dataDir: string): Promise<Record<string, string>> {
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir })
  try {
    await migrate(engine)
    const root = await loadGolden(engine)
    return { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  } finally {
    await engine.close()
  }
}

export async function main(args: string[]): Promise<void> {
  const requests = Number(args[0] ?? REQUESTS)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-fuzz-'))
  try {
    const headers = await prepareGolden(dataDir)
    const gateway = await startGateway({ dataDir, port: PORT, env: { QUARRY_RATE_LIMIT: '1000000' } })
    const urls = junkRequests({ seed: 99, rounds: Math.ceil(requests / ROUTES.length), projectId: 'shop' })
    const probes = cacheProbes({ seed: 7, count: Math.ceil(requests / PROBE_EVERY), projectId: 'shop', windows: PROBE_WINDOWS })
    const capped = cappedRequests({ seed: 11, projectId: 'shop' })
    const cappedStatuses = new Map<string, number>()
    const statuses = new Map<string, number>()
    const serverErrors: string[] = []
    const mismatches: string[] = []
    let sent = 0
    const started = performance.now()
    const ask = (url: string, extra: Record<string, string> = {}) =>
      fetch(`${gateway.url}${url}`, { headers: { ...headers, ...extra }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then(
        async (res) => {
          const body = await res.text()
          if (res.status >= 500 && res.status !== 503 && res.status !== 504)
            serverErrors.push(`${res.status} ${url.slice(0, 200)}: ${body.slice(0, 200)}`)
          statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1)
          return { status: res.status, body }
        },
        (error: Error) => {
          statuses.set(`failed (${error.name})`, (statuses.get(`failed (${error.name})`) ?? 0) + 1)
          return undefined
        },
      )
    /** A probe as it comes (perhaps from the cache), then fresh: both answers must be the same. */
    const probe = async (url: string) => {
      const asked = await ask(url)
      const fresh = await ask(url, { 'Cache-Control': 'no-cache' })
      if (asked?.status === 200 && fresh?.status === 200 && asked.body !== fresh.body)
        mismatches.push(`${url.slice(0, 300)}\n    cached: ${asked.body.slice(0, 200)}\n    fresh:  ${fresh.body.slice(0, 200)}`)
    }
    let probesSent = 0
    const worker = async () => {
      while (sent < requests) {
        const number = ++sent
        const next = number % PROBE_EVERY === 0 ? probes.next() : number % PROBE_EVERY === 1 ? capped.next() : urls.next()
        if (next.done) break
        if (number % PROBE_EVERY === 0) {
          probesSent += 1
          await probe(next.value)
        } else if (number % PROBE_EVERY === 1) {
          const answer = await ask(next.value)
          const key = `${new URL(next.value, 'http://fuzz').pathname.split('/').pop()} ${answer?.status ?? 'failed'}`
          cappedStatuses.set(key, (cappedStatuses.get(key) ?? 0) + 1)
        } else await ask(next.value)
        if (number % 1000 === 0) console.log(`${number} sent`)
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, worker))
    const seconds = (performance.now() - started) / 1000
    const health = await fetch(`${gateway.url}/health`).then(
      (res) => res.status,
      () => 0,
    )
    const crash = gateway.exited()
    await gateway.stop()
    console.log(
      `\n${sent} requests (${probesSent} of them cache probes, each asked twice) over ${ROUTES.length} routes in ${seconds.toFixed(0)} s, ${WORKERS} at a time`,
    )
    console.log('| status | requests |\n|---|---|')
    for (const [status, count] of [...statuses].sort()) console.log(`| ${status} | ${count} |`)
    console.log(
      `questions up to their caps, by route and status: ${[...cappedStatuses]
        .sort()
        .map(([key, count]) => `${key}: ${count}`)
        .join(', ')}`,
    )
    console.log(
      `5xx other than 503/504: ${serverErrors.length}; gateway crashed: ${crash ? JSON.stringify(crash) : 'no'}; /health after: ${health}`,
    )
    console.log(`cached answers that differ from the same request asked fresh: ${mismatches.length} of ${probesSent}`)
    for (const line of [...serverErrors.slice(0, 20), ...mismatches.slice(0, 10)]) console.log(`  ${line}`)
    if (serverErrors.length || mismatches.length || crash || health !== 200) {
      throw new Error(
        'the fuzz found a 5xx other than 503/504, a cached answer unlike the fresh one, a crash, or a gateway that no longer answers',
      )
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
