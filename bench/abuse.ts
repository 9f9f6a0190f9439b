// `npm run bench -- abuse`: the attack of issue 8 against the gateway in a child process. One read client
// keeps 8 hostile requests in flight while a second client asks /live and /ready; then 8 heavy valid
// requests at once while the second client asks /live. Prints latencies, statuses and end times.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../server/config'
import { createApiClient, createProject, findProject } from '../server/admin/control'
import { openEngine } from '../server/engine'
import { migrate } from '../server/admin/migrate'
import { seedProject } from '../server/admin/seed'
import { startGateway, type ChildGateway, type LoopDelay } from './gateway'
import { percentile } from './percentile'

const DATA_DIR = path.resolve(process.env.QUARRY_BENCH_ABUSE_DIR ?? path.join(os.tmpdir(), 'quarry-bench-abuse'))
const EVENTS = Number(process.env.QUARRY_BENCH_EVENTS ?? 1_500_000)
const SECONDS = Number(process.env.QUARRY_BENCH_SECONDS ?? 30)
const PORT = Number(process.env.QUARRY_BENCH_PORT ?? 3997)
/** The attack runs under a short limit, so its 504s come often and their timing can be read. */
const ATTACK_LIMIT_SECONDS = 5
const HOSTILE_IN_FLIGHT = 8
/** A client that goes away does so this long after sending. */
const GONE_AFTER_MS = 1_000
const PROJECT = 'abuse'
const END = new Date('2026-01-01T00:00:00Z')
const CREDENTIALS = path.join(DATA_DIR, 'bench-credentials.json')

type Headers = Record<string, string>
interface Clients {
  hostile: Headers
  second: Headers
}

async function prepareData(): Promise<Clients> {
  fs.mkdirSync(DATA_DIR, { recursive: true })
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir: DATA_DIR })
  try {
    await migrate(engine)
    if (!(await findProject(engine, PROJECT))) {
      await createProject(engine, { id: PROJECT, timezone: 'Europe/Berlin' })
      console.log(`seeding ${EVENTS} events over 365 days into ${DATA_DIR}...`)
      const { seconds } = await seedProject(engine, { projectId: PROJECT, events: EVENTS, days: 365, seed: 42, end: END })
      console.log(`seeded in ${seconds.toFixed(1)} s`)
      const headersOf = async (name: string) => {
        const client = await createApiClient(engine, { type: 'read', projectId: PROJECT, name })
        return { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
      }
      fs.writeFileSync(CREDENTIALS, JSON.stringify({ hostile: await headersOf('hostile'), second: await headersOf('second') }))
    }
    return JSON.parse(fs.readFileSync(CREDENTIALS, 'utf8')) as Clients
  } finally {
    await engine.close()
  }
}

const query = (value: unknown) => encodeURIComponent(JSON.stringify(value))
let tags = 0
let refusals = 0
/** 20 alternation-heavy patterns, new ones every call (so no cache could answer twice). */
function regexFilter(): object[] {
  const tag = (tags += 1)
  return [{ name: 'path', operator: 'regex', value: Array.from({ length: 20 }, (_, i) => `^/(a|b|c|d|e)+[0-9]*${tag}-${i}(x|y|z)*$`) }]
}

const heavyPages = () => `/insights/${PROJECT}/pages?range=12m&filters=${query(regexFilter())}`
const REFUSED = [
  `/insights/${PROJECT}/metrics?range=12m&interval=minute`,
  `/insights/${PROJECT}/metrics?startDate=1970-01-01&interval=minute`,
  `/export/charts?projectId=${PROJECT}&series=${query([{ name: '*' }])}&interval=day&startDate=1000-01-01&endDate=1999-12-31`,
  `/export/events?projectId=${PROJECT}&limit=1&filters=${query([{ name: 'path', operator: 'regex', value: Array.from({ length: 100 }, (_, i) => `^(/(a|b|c|d)+)+${i}(x|y|z)*$`) }])}`,
  `/export/events?projectId=${PROJECT}&page=10000000&limit=1000`,
  `/insights/${PROJECT}/metrics?startDate=2024-01-01&endDate=9999-12-31`,
]

/** Every kind of hostile request issue 8 names: the costly ones (now refused) and the heavy valid ones. */
const HOSTILE_KINDS: { kind: string; path: () => string; goneAfterMs?: number }[] = [
  { kind: '12m pages, 20 regex', path: heavyPages },
  { kind: '12m metrics, 20 regex', path: () => `/insights/${PROJECT}/metrics?range=12m&filters=${query(regexFilter())}` },
  { kind: '12m referrer, 20 regex', path: () => `/insights/${PROJECT}/referrer?range=12m&filters=${query(regexFilter())}` },
  { kind: '12m chart by day, 20 regex', path: () => `/export/charts?projectId=${PROJECT}&range=12m&interval=day&series=${query([{ name: 'screen_view', filters: regexFilter() }])}` },
  { kind: 'export page, 20 regex', path: () => `/export/events?projectId=${PROJECT}&limit=1&filters=${query(regexFilter())}` },
  { kind: 'whole-project NDJSON stream', path: () => `/export/events?projectId=${PROJECT}&format=ndjson` },
  { kind: `12m pages, gone after ${GONE_AFTER_MS} ms`, path: heavyPages, goneAfterMs: GONE_AFTER_MS },
  { kind: 'refused (minute buckets, old dates, 100 regex, deep page, year 9999)', path: () => REFUSED[(refusals += 1) % REFUSED.length] },
]

interface Outcome {
  status: string
  ms: number
  /** A 200 stream that ended before its last byte (cut by a chunk's deadline). */
  cut?: boolean
}

async function send(url: string, headers: Headers, goneAfterMs?: number): Promise<Outcome> {
  const started = performance.now()
  const signal = goneAfterMs ? AbortSignal.timeout(goneAfterMs) : undefined
  try {
    const res = await fetch(url, { headers, signal })
    let cut = false
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) void chunk
    } catch {
      cut = true
    }
    return { status: String(res.status), ms: performance.now() - started, cut }
  } catch {
    return { status: goneAfterMs ? 'gone' : 'failed', ms: performance.now() - started }
  }
}

/** Asks `path` again and again, one at a time, until `stop` says so. */
async function poll(url: string, headers: Headers, stop: () => boolean): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  while (!stop()) {
    outcomes.push(await send(url, headers))
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return outcomes
}

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(0))

function printLatencies(name: string, outcomes: Outcome[]): void {
  const times = outcomes.map((outcome) => outcome.ms)
  const statuses = countBy(outcomes.map((outcome) => outcome.status))
  console.log(`| ${name} | ${outcomes.length} | ${ms(percentile(times, 50))} | ${ms(percentile(times, 95))} | ${ms(Math.max(...times))} | ${statuses} |`)
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  return [...counts].map(([value, count]) => `${value}: ${count}`).join(', ')
}

async function attack(gateway: ChildGateway, clients: Clients): Promise<void> {
  const baseline = [...(await poll(`${gateway.url}/insights/${PROJECT}/live`, clients.second, countdown(10)))]
  const readyBaseline = await poll(`${gateway.url}/ready`, {}, countdown(10))
  const deadline = performance.now() + SECONDS * 1000
  const over = () => performance.now() > deadline
  const hostile = new Map<string, Outcome[]>(HOSTILE_KINDS.map(({ kind }) => [kind, []]))
  const worker = async (first: number) => {
    for (let n = first; !over(); n += 1) {
      const { kind, path: pathOf, goneAfterMs } = HOSTILE_KINDS[n % HOSTILE_KINDS.length]
      hostile.get(kind)?.push(await send(`${gateway.url}${pathOf()}`, clients.hostile, goneAfterMs))
    }
  }
  const attackers = Promise.all(Array.from({ length: HOSTILE_IN_FLIGHT }, (_, i) => worker(i)))
  // The second client starts once the attack is under way.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const [live, ready] = await Promise.all([poll(`${gateway.url}/insights/${PROJECT}/live`, clients.second, over), poll(`${gateway.url}/ready`, {}, over)])
  await attackers
  const after = await send(`${gateway.url}/insights/${PROJECT}/live`, clients.second)

  console.log(`\n## Attack: ${HOSTILE_IN_FLIGHT} hostile requests in flight from one read client for ${SECONDS} s, QUARRY_MAX_EXECUTION_SECONDS=${ATTACK_LIMIT_SECONDS}\n`)
  console.log('| second client | requests | p50 ms | p95 ms | max ms | statuses |\n|---|---|---|---|---|---|')
  printLatencies('/live, idle gateway', baseline)
  printLatencies('/ready, idle gateway', readyBaseline)
  printLatencies('/live during the attack', live)
  printLatencies('/ready during the attack', ready)
  console.log(`\n| hostile kind | requests | p50 ms | p95 ms | max ms | statuses |\n|---|---|---|---|---|---|`)
  for (const [kind, outcomes] of hostile) printLatencies(kind, outcomes)
  const all = [...hostile.values()].flat()
  const timeouts = all.filter((outcome) => outcome.status === '504').map((outcome) => outcome.ms)
  const refused = hostile.get(HOSTILE_KINDS[HOSTILE_KINDS.length - 1].kind) ?? []
  console.log(`\n504s: ${timeouts.length}, the slowest after ${ms(Math.max(...timeouts))} ms (limit ${ATTACK_LIMIT_SECONDS * 1000} ms + 1 s = ${ATTACK_LIMIT_SECONDS * 1000 + 1000} ms)`)
  console.log(`refused kinds: ${countBy(refused.map((outcome) => outcome.status))}, the slowest after ${ms(Math.max(...refused.map((outcome) => outcome.ms)))} ms`)
  console.log(`streams cut by a chunk's deadline: ${all.filter((outcome) => outcome.cut).length}`)
  console.log(`statuses over all hostile requests: ${countBy(all.map((outcome) => outcome.status))}`)
  console.log(`a /live right after the attack: ${after.status} in ${ms(after.ms)} ms`)
}

/** A stop condition true after `count` calls. */
function countdown(count: number): () => boolean {
  let left = count
  return () => left-- <= 0
}

async function heavyLoad(gateway: ChildGateway, clients: Clients): Promise<void> {
  const solo: number[] = []
  for (let n = 0; n < 3; n += 1) solo.push((await send(`${gateway.url}${heavyPages()}`, clients.hostile)).ms)
  const liveSolo = await poll(`${gateway.url}/insights/${PROJECT}/live`, clients.second, countdown(10))
  const deadline = performance.now() + SECONDS * 1000
  const over = () => performance.now() > deadline
  const heavy: Outcome[] = []
  const worker = async () => {
    while (!over()) heavy.push(await send(`${gateway.url}${heavyPages()}`, clients.hostile))
  }
  const load = Promise.all(Array.from({ length: HOSTILE_IN_FLIGHT }, worker))
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const live = await poll(`${gateway.url}/insights/${PROJECT}/live`, clients.second, over)
  await load
  console.log(`\n## Heavy valid load: ${HOSTILE_IN_FLIGHT} at once of 12-month pages with a 20-pattern regex filter, for ${SECONDS} s (default limit)\n`)
  console.log(`one such statement alone: ${solo.map(ms).join(', ')} ms (median ${ms(percentile(solo, 50))})`)
  console.log('| client | requests | p50 ms | p95 ms | max ms | statuses |\n|---|---|---|---|---|---|')
  printLatencies('heavy pages (8 in flight)', heavy)
  printLatencies('second client /live, idle', liveSolo)
  printLatencies('second client /live, under the load', live)
}

function printLoopDelay(delay: LoopDelay | undefined): void {
  if (delay) console.log(`gateway event-loop delay over the phase: p50 ${delay.p50} ms, p99 ${delay.p99} ms, max ${delay.max} ms`)
}

export async function main(args: string[]): Promise<void> {
  const clients = await prepareData()
  const phases = args.length ? args : ['attack', 'heavy']
  if (phases.includes('attack')) {
    const gateway = await startGateway({ dataDir: DATA_DIR, port: PORT, env: { QUARRY_MAX_EXECUTION_SECONDS: String(ATTACK_LIMIT_SECONDS), QUARRY_RATE_LIMIT: '1000000' } })
    try {
      await attack(gateway, clients)
    } finally {
      printLoopDelay(await gateway.stop())
    }
  }
  if (phases.includes('heavy')) {
    const gateway = await startGateway({ dataDir: DATA_DIR, port: PORT, env: { QUARRY_RATE_LIMIT: '1000000' } })
    try {
      await heavyLoad(gateway, clients)
    } finally {
      printLoopDelay(await gateway.stop())
    }
  }
}

