// Bench data: a seeded project in its own data directory (seeded once, merges awaited), and the settings
// of the gateway the latency benches start (bench/gateway.ts).
import fs from 'node:fs'
import path from 'node:path'
import type { ClickHouseClient } from '@clickhouse/client'
import { loadConfig } from '../server/config'
import { createApiClient, createProject, findProject } from '../server/admin/control'
import { openEngine, type Engine } from '../server/engine'
import { migrate } from '../server/admin/migrate'
import { seedProject } from '../server/admin/seed'
import { compactionOptions, compactSessions } from '../server/admin/compact'
import { COMBINED_TABLES } from '../queries/sessions/combined-tables'
import { buildBaseline } from './openpanel'

export const ROOT = path.join(__dirname, '..')
export const PROJECT = 'bench'
export const TIMEZONE = 'Europe/Berlin'
export const END = new Date('2026-01-01T00:00:00Z')
export const PORT = Number(process.env.QUARRY_BENCH_PORT ?? 3999)

export interface Dataset {
  dir: string
  events: number
  days: number
}

export interface Credentials {
  id: string
  secret: string
}

/**
 * The main dataset (10M events over 90 days by default) and the long one (by default 4× the events over 360
 * days, the same events a day; QUARRY_BENCH_LONG_EVENTS seeds fewer, where the time to seed 40M is lacking).
 */
export const MAIN: Dataset = {
  dir: path.resolve(process.env.QUARRY_BENCH_DIR ?? path.join(ROOT, '.bench-data')),
  events: Number(process.env.QUARRY_BENCH_EVENTS ?? 10_000_000),
  days: 90,
}
export const LONG: Dataset = { dir: `${MAIN.dir}-360d`, events: Number(process.env.QUARRY_BENCH_LONG_EVENTS ?? MAIN.events * 4), days: 360 }

/** Events a day, for the headers that compare datasets. */
export const perDay = (dataset: Dataset) => Math.round(dataset.events / dataset.days)

/**
 * What a directory was seeded with (written after its seed; directories seeded before it was kept have no
 * record): a later open asking for other figures fails instead of timing other data under the asked figures.
 */
const seededFile = (dataset: Dataset) => path.join(dataset.dir, 'bench-dataset.json')
function checkSeeded(dataset: Dataset): void {
  const file = seededFile(dataset)
  if (!fs.existsSync(file)) return
  const seeded = JSON.parse(fs.readFileSync(file, 'utf8')) as { events: number; days: number }
  if (seeded.events !== dataset.events || seeded.days !== dataset.days) {
    throw new Error(
      `${dataset.dir} holds ${seeded.events} events over ${seeded.days} days, not the ${dataset.events} over ${dataset.days} asked: set the figures it was seeded with, or remove it`,
    )
  }
}

/** Waits until the engine has no background merge running (three quiet checks in a row). */
export async function waitForMerges(client: ClickHouseClient): Promise<number> {
  const started = performance.now()
  for (let quiet = 0; quiet < 3; ) {
    const result = await client.query({ query: 'SELECT count() AS n FROM system.merges', format: 'JSONEachRow' })
    const running = Number(((await result.json()) as { n: string }[])[0].n)
    quiet = running === 0 ? quiet + 1 : 0
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  return (performance.now() - started) / 1000
}

/**
 * Merges each partition of `events` and the discovery summaries (and, for `sessions`, of the sessions and
 * combined tables) into one part, skipping those already in one. How many parts background merges leave depends on how the data was seeded: the 360-day
 * project's months were left in more parts of events than the 90-day project's. A chart read many parts
 * measurably slower than one (bench/README.md), which the 360-day / 90-day ratio would count as the cost of
 * the project's history. A combined table's month gets a part for each day compacted (its partitions are months) until
 * merges combine them. All but the discovery summaries are plain MergeTrees, so merging changes no row a
 * reader keeps (it removes rows already deleted); the summaries (migrations/003_event_discovery.sql) combine
 * each bucket's rows into one, the same sums their readers take. Returns the seconds it took.
 */
async function mergeParts(client: ClickHouseClient, reads: Reads): Promise<number> {
  const started = performance.now()
  const summaries = ['event_names', 'event_property_keys', 'event_property_values']
  const tables =
    reads === 'sessions' ? ['events', 'sessions', ...COMBINED_TABLES.map((entry) => entry.table), ...summaries] : ['events', ...summaries]
  for (const table of tables) {
    await client.command({ query: `OPTIMIZE TABLE ${table} FINAL`, clickhouse_settings: { optimize_skip_merged_partitions: 1 } })
  }
  return (performance.now() - started) / 1000
}

/**
 * What a bench reads besides `events`: `sessions` (the default) when it asks session questions, so the
 * OpenPanel-shaped sessions table and the compaction of settled days are built first; `events` when it reads
 * events only (the behaviour questions and their baselines), which skips both.
 */
export type Reads = 'sessions' | 'events'

/**
 * Opens a dataset's engine, seeding the project and a root client the first time, and building what `reads`
 * needs (a later open that reads sessions builds what an events-only one skipped).
 */
export async function openDataset(dataset: Dataset, reads: Reads = 'sessions'): Promise<{ engine: Engine; credentials: Credentials }> {
  fs.mkdirSync(dataset.dir, { recursive: true })
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir: dataset.dir })
  await migrate(engine)
  const credentialsFile = path.join(dataset.dir, 'bench-credentials.json')
  if (!(await findProject(engine, PROJECT))) {
    await createProject(engine, { id: PROJECT, timezone: TIMEZONE })
    console.log(`seeding ${dataset.events} events over ${dataset.days} days into ${dataset.dir}...`)
    const { seconds } = await seedProject(engine, { projectId: PROJECT, events: dataset.events, days: dataset.days, seed: 42, end: END })
    console.log(`seeded in ${seconds.toFixed(1)} s`)
    fs.writeFileSync(seededFile(dataset), JSON.stringify({ events: dataset.events, days: dataset.days }))
  }
  checkSeeded(dataset)
  if (!fs.existsSync(credentialsFile)) {
    const client = await createApiClient(engine, { type: 'root', name: 'bench' })
    fs.writeFileSync(credentialsFile, JSON.stringify({ id: client.id, secret: client.secret }))
  }
  if (reads === 'sessions') {
    await buildBaseline(engine.client, PROJECT)
    // Compacted as a gateway at the bench's clock would have: the days whose read range ended before END;
    // the last ones are the open edge, regrouped by every question (the bench's gateway never compacts).
    const compacted = await compactSessions(engine, { ...compactionOptions(loadConfig({})), now: END })
    if (compacted.days || compacted.dropped) {
      console.log(
        `compacted ${compacted.sessions} sessions of ${compacted.days} settled days, dropped ${compacted.dropped} replaced compactions, rewriting ${compacted.rewritten} months without them, in ${compacted.seconds.toFixed(1)} s`,
      )
    }
  }
  const merged = await mergeParts(engine.client, reads)
  console.log(
    `${dataset.dir}: ${reads === 'sessions' ? 'events, sessions and the combined tables' : 'events'} merged into one part a partition (OPTIMIZE ... FINAL) in ${merged.toFixed(0)} s`,
  )
  const waited = await waitForMerges(engine.client)
  console.log(`${dataset.dir}: background merges finished (waited ${waited.toFixed(0)} s) before timing`)
  return { engine, credentials: JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as Credentials }
}

/** Settings of the gateway the latency benches time: nothing of the bench's own load is refused. */
export const BENCH_GATEWAY_ENV = { QUARRY_RATE_LIMIT: '1000000', QUARRY_MAX_CONCURRENT_QUERIES: '64', QUARRY_MAX_EXECUTION_SECONDS: '300' }

/** Waits (up to 30 s) until the gateway accepts the bench credentials; a fresh seed's client may lag. */
export async function waitForAuth(headers: Record<string, string>, url = `http://127.0.0.1:${PORT}`): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt += 1) {
    const res = await fetch(`${url}/insights/${PROJECT}/live`, { headers })
    await res.arrayBuffer()
    if (res.status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  throw new Error('the gateway did not accept the bench credentials within 30 s')
}
