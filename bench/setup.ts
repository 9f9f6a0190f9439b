// Bench data and gateway: a seeded project in its own data directory (seeded once, merges awaited) and
// the gateway started as a child process on loopback.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import type { ClickHouseClient } from '@clickhouse/client'
import { loadConfig } from '../server/config'
import { createApiClient, createProject, findProject } from '../server/admin/control'
import { openEngine, type Engine } from '../server/engine'
import { migrate } from '../server/admin/migrate'
import { seedProject } from '../server/admin/seed'
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

/** The main dataset (10M events over 90 days by default) and the long one (4× the events over 360 days). */
export const MAIN: Dataset = {
  dir: path.resolve(process.env.QUARRY_BENCH_DIR ?? path.join(ROOT, '.bench-data')),
  events: Number(process.env.QUARRY_BENCH_EVENTS ?? 10_000_000),
  days: 90,
}
export const LONG: Dataset = { dir: `${MAIN.dir}-360d`, events: MAIN.events * 4, days: 360 }

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

/** Opens a dataset's engine, seeding the project, a root client and the baseline table the first time. */
export async function openDataset(dataset: Dataset): Promise<{ engine: Engine; credentials: Credentials }> {
  fs.mkdirSync(dataset.dir, { recursive: true })
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir: dataset.dir })
  await migrate(engine)
  const credentialsFile = path.join(dataset.dir, 'bench-credentials.json')
  if (!(await findProject(engine, PROJECT))) {
    await createProject(engine, { id: PROJECT, timezone: TIMEZONE })
    console.log(`seeding ${dataset.events} events over ${dataset.days} days into ${dataset.dir}...`)
    const { seconds } = await seedProject(engine, { projectId: PROJECT, events: dataset.events, days: dataset.days, seed: 42, end: END })
    console.log(`seeded in ${seconds.toFixed(1)} s`)
  }
  if (!fs.existsSync(credentialsFile)) {
    const client = await createApiClient(engine, { type: 'root', name: 'bench' })
    fs.writeFileSync(credentialsFile, JSON.stringify({ id: client.id, secret: client.secret }))
  }
  await buildBaseline(engine.client, PROJECT)
  const waited = await waitForMerges(engine.client)
  console.log(`${dataset.dir}: background merges finished (waited ${waited.toFixed(0)} s) before timing`)
  return { engine, credentials: JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as Credentials }
}

/** The gateway (requests go to loopback), in one child process (node with tsx's loader), killed when the bench exits. */
export async function startGateway(dataDir: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'http', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', QUARRY_DATA_DIR: dataDir, PORT: String(PORT), LOG_LEVEL: 'error', QUARRY_RATE_LIMIT: '1000000', QUARRY_MAX_CONCURRENT_QUERIES: '64', QUARRY_MAX_EXECUTION_SECONDS: '300', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
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

/** Waits (up to 30 s) until the gateway accepts the bench credentials; a fresh seed's client may lag. */
export async function waitForAuth(headers: Record<string, string>): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt += 1) {
    const res = await fetch(`http://127.0.0.1:${PORT}/insights/${PROJECT}/live`, { headers })
    await res.arrayBuffer()
    if (res.status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
  throw new Error('the gateway did not accept the bench credentials within 30 s')
}

/** Stops the gateway and waits until it has released its data directory. */
export async function stopGateway(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}
