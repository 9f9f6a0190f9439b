// `npm run bench`: seeds (once) a 10-million-event project in its own data directory, starts the gateway
// in a child process, and loads every insights endpoint over a 30-day window, export pages (first and
// deep, keyset and offset) and a 3-series chart at concurrency 1 and 8, printing p50/p95 latency and
// requests per second; then streams the whole project as NDJSON and reports rows/s and the gateway's
// peak RSS.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { loadConfig } from '../server/config'
import { createApiClient, createProject, findProject } from '../server/control'
import { openEngine } from '../server/engine'
import { migrate } from '../server/migrate'
import { seedProject } from '../server/seed'
import { loadTest } from './load'

const ROOT = path.join(__dirname, '..')
const DATA_DIR = path.resolve(process.env.QUARRY_BENCH_DIR ?? path.join(ROOT, '.bench-data'))
const EVENTS = Number(process.env.QUARRY_BENCH_EVENTS ?? 10_000_000)
const SECONDS = Number(process.env.QUARRY_BENCH_SECONDS ?? 5)
const PORT = Number(process.env.QUARRY_BENCH_PORT ?? 3999)
const PROJECT = 'bench'
const END = new Date('2026-01-01T00:00:00Z')
const CREDENTIALS = path.join(DATA_DIR, 'bench-credentials.json')

interface Credentials {
  id: string
  secret: string
}

async function prepareData(): Promise<Credentials> {
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir: DATA_DIR })
  try {
    await migrate(engine)
    if (!(await findProject(engine, PROJECT))) {
      await createProject(engine, { id: PROJECT, timezone: 'Europe/Berlin' })
      console.log(`seeding ${EVENTS} events over 90 days...`)
      const { seconds } = await seedProject(engine, { projectId: PROJECT, events: EVENTS, days: 90, seed: 42, end: END })
      console.log(`seeded in ${seconds.toFixed(1)} s`)
      const client = await createApiClient(engine, { type: 'root', name: 'bench' })
      fs.writeFileSync(CREDENTIALS, JSON.stringify({ id: client.id, secret: client.secret }))
    }
    return JSON.parse(fs.readFileSync(CREDENTIALS, 'utf8')) as Credentials
  } finally {
    await engine.close()
  }
}

async function startGateway(): Promise<ChildProcess> {
  // One process (node with tsx's loader), so its /proc status is the gateway's own memory.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, QUARRY_DATA_DIR: DATA_DIR, PORT: String(PORT), LOG_LEVEL: 'error', QUARRY_RATE_LIMIT: '1000000', QUARRY_MAX_CONCURRENT_QUERIES: '64' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  // The gateway never outlives the bench, however the bench ends.
  process.once('exit', () => child.kill('SIGKILL'))
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)))
  })
  return child
}

const WINDOW = `startDate=2025-12-02&endDate=2025-12-31`
const ENDPOINTS = [
  'live',
  `metrics?${WINDOW}`,
  `pages?${WINDOW}`,
  ...['referrer', 'referrer_name', 'referrer_type', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content', 'country', 'region', 'city', 'device', 'brand', 'model', 'browser', 'browser_version', 'os', 'os_version'].map(
    (name) => `${name}?${WINDOW}`,
  ),
  `referrer?${WINDOW}&filters=${encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'contains', value: ['a'] }]))}`,
]

const CHART_SERIES = JSON.stringify([
  { name: 'screen_view', segment: 'user' },
  { name: 'purchase', segment: 'property_sum', property: 'revenue' },
  { name: '*', segment: 'session', filters: [{ name: 'country', operator: 'is', value: ['DE'] }] },
])

/** A cursor about `depth` rows into the newest-first export (found once, through an offset page). */
async function deepCursor(headers: Record<string, string>, depth: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${PORT}/export/events?projectId=${PROJECT}&limit=1&page=${depth}`, { headers })
  const body = (await res.json()) as { meta: { nextCursor: string } }
  return body.meta.nextCursor
}

/** A /proc status field of the gateway, in MB: VmRSS (now) or VmHWM (peak so far). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024
}

/** Streams the whole project as NDJSON, counting rows as they arrive. */
async function streamAll(headers: Record<string, string>, gateway: ChildProcess) {
  const pid = gateway.pid as number
  const before = memoryMb(pid, 'VmRSS')
  let highest = before
  const sampler = setInterval(() => {
    highest = Math.max(highest, memoryMb(pid, 'VmRSS'))
  }, 250)
  const started = performance.now()
  const res = await fetch(`http://127.0.0.1:${PORT}/export/events?projectId=${PROJECT}&format=ndjson`, { headers })
  let rows = 0
  let bytes = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length
    for (const byte of chunk) if (byte === 10) rows += 1
  }
  const seconds = (performance.now() - started) / 1000
  clearInterval(sampler)
  return { rows, megabytes: bytes / 1024 / 1024, seconds, rssBefore: before, rssHighest: highest, hwm: memoryMb(pid, 'VmHWM') }
}

async function main() {
  fs.mkdirSync(DATA_DIR, { recursive: true })
  const credentials = await prepareData()
  const gateway = await startGateway()
  try {
    console.log(`\n${EVENTS} events, project "${PROJECT}", 30-day window, ${SECONDS} s per cell\n`)
    console.log('| endpoint | c=1 p50 ms | c=1 p95 ms | c=1 req/s | c=8 p50 ms | c=8 p95 ms | c=8 req/s | errors |')
    console.log('|---|---|---|---|---|---|---|---|')
    for (const endpoint of ENDPOINTS) {
      const url = `http://127.0.0.1:${PORT}/insights/${PROJECT}/${endpoint}`
      const headers = { 'openpanel-client-id': credentials.id, 'openpanel-client-secret': credentials.secret }
      const one = await loadTest({ url, headers, connections: 1, seconds: SECONDS })
      const eight = await loadTest({ url, headers, connections: 8, seconds: SECONDS })
      const name = endpoint.split('&filters')[0].split('?')[0] + (endpoint.includes('filters') ? ' (event filter)' : '')
      const ms = (value: number) => value.toFixed(0)
      console.log(`| ${name} | ${ms(one.p50)} | ${ms(one.p95)} | ${one.rps.toFixed(1)} | ${ms(eight.p50)} | ${ms(eight.p95)} | ${eight.rps.toFixed(1)} | ${one.errors + eight.errors} |`)
    }
    const headers = { 'openpanel-client-id': credentials.id, 'openpanel-client-secret': credentials.secret }
    const depth = Math.floor(EVENTS / 2)
    const cursor = await deepCursor(headers, depth)
    const exportCells: [string, string][] = [
      ['export: first page (limit 50)', `/export/events?projectId=${PROJECT}&limit=50`],
      [`export: keyset page ${depth} rows deep`, `/export/events?projectId=${PROJECT}&limit=50&cursor=${cursor}`],
      [`export: offset page ${depth} rows deep`, `/export/events?projectId=${PROJECT}&limit=50&page=${Math.floor(depth / 50)}`],
      ['export: first page, all includes', `/export/events?projectId=${PROJECT}&limit=50&includes=properties,profile,meta,geo,device,referrer`],
      ['chart: 3 series, 30 days by day', `/export/charts?projectId=${PROJECT}&startDate=2025-12-02&endDate=2025-12-31&interval=day&series=${encodeURIComponent(CHART_SERIES)}`],
      ['chart: same with previous period', `/export/charts?projectId=${PROJECT}&startDate=2025-12-02&endDate=2025-12-31&interval=day&previous=true&series=${encodeURIComponent(CHART_SERIES)}`],
    ]
    for (const [name, path] of exportCells) {
      const url = `http://127.0.0.1:${PORT}${path}`
      const one = await loadTest({ url, headers, connections: 1, seconds: SECONDS })
      const eight = await loadTest({ url, headers, connections: 8, seconds: SECONDS })
      const ms = (value: number) => value.toFixed(0)
      console.log(`| ${name} | ${ms(one.p50)} | ${ms(one.p95)} | ${one.rps.toFixed(1)} | ${ms(eight.p50)} | ${ms(eight.p95)} | ${eight.rps.toFixed(1)} | ${one.errors + eight.errors} |`)
    }
    const stream = await streamAll(headers, gateway)
    console.log(
      `\nNDJSON export of the whole project: ${stream.rows} rows, ${stream.megabytes.toFixed(0)} MB in ${stream.seconds.toFixed(1)} s ` +
        `= ${Math.round(stream.rows / stream.seconds)} rows/s; gateway RSS ${stream.rssBefore.toFixed(0)} MB before, ` +
        `at most ${stream.rssHighest.toFixed(0)} MB during the stream (process peak so far ${stream.hwm.toFixed(0)} MB)`,
    )
  } finally {
    gateway.kill('SIGTERM')
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
