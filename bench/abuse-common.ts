// What the abuse bench's phases share: its seeded project and clients (a hostile one, a second one whose
// latency is watched, eight heavy ones), the second client's probes on the load-test kit's runner, and the
// table rows they print.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../server/config'
import { createApiClient, createProject, findProject } from '../server/admin/control'
import { openEngine } from '../server/engine'
import { migrate } from '../server/admin/migrate'
import { seedProject } from '../server/admin/seed'
import { startLoad, type RequestSpec, type RouteStats, type RunningLoad } from '../loadtest/runner'
import type { ChildGateway } from './gateway'

export const DATA_DIR = path.resolve(process.env.QUARRY_BENCH_ABUSE_DIR ?? path.join(os.tmpdir(), 'quarry-bench-abuse'))
const EVENTS = Number(process.env.QUARRY_BENCH_EVENTS ?? 1_500_000)
export const SECONDS = Number(process.env.QUARRY_BENCH_SECONDS ?? 30)
export const PORT = Number(process.env.QUARRY_BENCH_PORT ?? 3997)
export const PROJECT = 'abuse'
const END = new Date('2026-01-01T00:00:00Z')
const CREDENTIALS = path.join(DATA_DIR, 'bench-credentials.json')
/** Clients of the "8 clients × 8 no-cache heavy requests" attack. */
export const HEAVY_CLIENTS = 8

export type Headers = Record<string, string>
export interface Clients {
  hostile: Headers
  second: Headers
  heavy: Headers[]
  /** A client that asks only in the lock-out attack, so that the gateway has not seen it before. */
  cold: Headers
}

/** Seeds the project once; creates whichever of the clients an earlier run did not. */
export async function prepareData(): Promise<Clients> {
  fs.mkdirSync(DATA_DIR, { recursive: true })
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir: DATA_DIR })
  try {
    await migrate(engine)
    if (!(await findProject(engine, PROJECT))) {
      await createProject(engine, { id: PROJECT, timezone: 'Europe/Berlin' })
      console.log(`seeding ${EVENTS} events over 365 days into ${DATA_DIR}...`)
      const { seconds } = await seedProject(engine, { projectId: PROJECT, events: EVENTS, days: 365, seed: 42, end: END })
      console.log(`seeded in ${seconds.toFixed(1)} s`)
    }
    const headersOf = async (name: string) => {
      const client = await createApiClient(engine, { type: 'read', projectId: PROJECT, name })
      return { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
    }
    const saved = (fs.existsSync(CREDENTIALS) ? JSON.parse(fs.readFileSync(CREDENTIALS, 'utf8')) : {}) as Partial<Clients>
    const clients: Clients = {
      hostile: saved.hostile ?? (await headersOf('hostile')),
      second: saved.second ?? (await headersOf('second')),
      heavy: saved.heavy ?? (await Promise.all(Array.from({ length: HEAVY_CLIENTS }, (_, i) => headersOf(`heavy ${i + 1}`)))),
      cold: saved.cold ?? (await headersOf('cold')),
    }
    fs.writeFileSync(CREDENTIALS, JSON.stringify(clients))
    return clients
  } finally {
    await engine.close()
  }
}

export const query = (value: unknown) => encodeURIComponent(JSON.stringify(value))
export const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(0))

/** The second client's questions: /live, and a 30-day /metrics the result cache may not answer. */
export const SECOND_PROBES = {
  live: `/insights/${PROJECT}/live`,
  metrics: `/insights/${PROJECT}/metrics?range=30d`,
} as const

/** Requests a probe sends a second, one at a time. */
const PROBE_RATE = 10

/**
 * One client asking `path` on one connection, PROBE_RATE times a second at most (the next waits for the
 * previous answer), until `count` answers or `seconds` have passed, or it is stopped.
 */
export function probe(url: string, options: { path: string; headers: Headers; count?: number; seconds?: number }): RunningLoad {
  return startLoad({
    url,
    headers: { ...options.headers, 'cache-control': 'no-cache' },
    connections: 1,
    rate: PROBE_RATE,
    amount: options.count,
    durationSeconds: options.seconds ?? (options.count ? undefined : SECONDS),
    timeoutSeconds: 60,
    connection: () => () => ({ route: options.path, path: options.path }),
  })
}

export const countText = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ')

/** A `| name | requests | p50 | p95 | max | statuses |` row. */
export function statsRow(name: string, stats: RouteStats | undefined): string {
  if (!stats?.requests) return `| ${name} | 0 | - | - | - | - |`
  return `| ${name} | ${stats.requests} | ${ms(stats.latency.p50)} | ${ms(stats.latency.p95)} | ${ms(stats.latency.max)} | ${countText(stats.statuses)} |`
}

export const STATS_HEADER = '| requests | p50 ms | p95 ms | max ms | statuses |'

/** Adds up status counts. */
export function mergeStatuses(...all: Record<string, number>[]): Record<string, number> {
  const merged: Record<string, number> = {}
  for (const statuses of all) for (const [status, count] of Object.entries(statuses)) merged[status] = (merged[status] ?? 0) + count
  return merged
}

/** Connections an attack keeps busy. */
export const IN_FLIGHT = 8
/** Attack requests are not cut by the runner: the gateway's own limits end them. */
export const ATTACK_TIMEOUT_SECONDS = 300

/** An attack of abuse-attacks.ts, run on a fresh gateway beside the second client. */
export interface Attack {
  describe: string
  /** Starts the attack's load (it stops by itself after SECONDS). */
  start(gateway: ChildGateway, clients: Clients): Promise<RunningLoad>
  /**
   * The attack's kinds of statement, each as the requests sent at once that one statement answers, for their
   * time alone on the quiet gateway (none for a flood).
   */
  kinds?(gateway: ChildGateway, clients: Clients): Promise<RequestSpec[][]>
}

/** The hostile client's IN_FLIGHT connections with Cache-Control: no-cache, each sending `next()` in turn, for SECONDS. */
export function hostileNoCache(gateway: ChildGateway, clients: Clients, next: () => RequestSpec): RunningLoad {
  return startLoad({
    url: gateway.url,
    headers: { ...clients.hostile, 'cache-control': 'no-cache' },
    connections: IN_FLIGHT,
    durationSeconds: SECONDS,
    timeoutSeconds: ATTACK_TIMEOUT_SECONDS,
    connection: () => next,
  })
}
