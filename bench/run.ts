// `npm run bench`: seeds (once) a 10-million-event project in its own data directory, starts the gateway
// in a child process, and loads every insights endpoint over a 30-day window at concurrency 1 and 8,
// printing p50/p95 latency and requests per second.
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
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'server', 'main.ts')], {
    env: { ...process.env, QUARRY_DATA_DIR: DATA_DIR, PORT: String(PORT), LOG_LEVEL: 'error', QUARRY_RATE_LIMIT: '1000000', QUARRY_MAX_CONCURRENT_QUERIES: '64' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
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
  } finally {
    gateway.kill('SIGTERM')
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
