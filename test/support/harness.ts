// Integration-test harness: a fresh embedded engine in its own temporary directory, migrated, with the
// gateway app built over it. Suites run one at a time (one data directory per process).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type express from 'express'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { createApp } from '../../server/http/app'
import { loadConfig, type Config } from '../../server/config'
import { createApiClient, createProject } from '../../server/admin/control'
import { Directory } from '../../server/http/directory'
import { createRunner, openEngine, type Engine } from '../../server/engine'
import { importEvents, parseEventLine } from '../../server/admin/importer'
import { createLogger } from '../../server/logger'
import { migrate } from '../../server/admin/migrate'
import type { RawEvent } from '../reference/model'

export const FIXTURES = path.join(__dirname, '..', '..', 'fixtures')

export interface Harness {
  dir: string
  config: Config
  engine: Engine
  runner: ReturnType<typeof createRunner>
  directory: Directory
  app: express.Express
  now: Date
  /** Builds `app` again, as a restarted gateway: nothing cached, no settled check's rows to reuse. */
  newApp(): void
  close(): Promise<void>
}

export interface HarnessOptions {
  env?: Record<string, string>
  now?: Date
  /** An existing data directory to serve (removed on close); a new temporary one by default. */
  dir?: string
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-test-'))
  // Tests insert and query at once: clients, projects and the result cache's data version are read on every request.
  const config = loadConfig({ QUARRY_DATA_DIR: dir, QUARRY_AUTH_CACHE_MS: '0', QUARRY_CACHE_VERSION_MS: '0', ...options.env })
  const engine = await openEngine(config.engine)
  await migrate(engine)
  const runner = createRunner(engine, config)
  const directory = new Directory(runner, config.authCacheMs, { checksPerSecond: config.authChecksPerSecond })
  const harness: Harness = {
    dir,
    config,
    engine,
    runner,
    directory,
    now: options.now ?? new Date(),
    app: undefined as unknown as express.Express,
    newApp() {
      harness.app = createApp({ config, runner, directory, logger: createLogger('error', true), clock: () => harness.now })
    },
    async close() {
      await engine.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
  harness.newApp()
  return harness
}

interface GoldenProject {
  id: string
  name: string
  timezone: string
}

/** A golden project's events, as its fixture lists them. */
export function goldenEvents(projectId: string): RawEvent[] {
  return fs
    .readFileSync(path.join(FIXTURES, 'golden', `${projectId}.ndjson`), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as RawEvent)
}

export function goldenProjects(): GoldenProject[] {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, 'golden', 'projects.json'), 'utf8')) as GoldenProject[]
}

/** Creates the golden projects, imports their events, and returns a root client's credentials. */
export async function loadGolden(engine: Engine): Promise<{ id: string; secret: string }> {
  for (const project of goldenProjects()) {
    await createProject(engine, project)
    const report = await importEvents(engine, {
      projectId: project.id,
      file: path.join(FIXTURES, 'golden', `${project.id}.ndjson`),
      skipBad: false,
    })
    if (report.bad.length) throw new Error(`golden fixture has bad lines: ${JSON.stringify(report.bad)}`)
  }
  const profiles = fs
    .readFileSync(path.join(FIXTURES, 'golden', 'profiles.ndjson'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .map((profile) => ({
      ...profile,
      created_at: toClickHouseTime(new Date(String(profile.created_at))),
      last_seen_at: toClickHouseTime(new Date(String(profile.last_seen_at))),
    }))
  await engine.client.insert({ table: 'profiles', values: profiles, format: 'JSONEachRow' })
  const root = await createApiClient(engine, { type: 'root', name: 'golden root' })
  return { id: root.id, secret: root.secret }
}

/** Inserts raw events (the NDJSON import format) in one insert, as the importer would. */
export async function insertRawEvents(engine: Engine, events: object[], projectId: string): Promise<void> {
  const rows = events.map((event) => parseEventLine(JSON.stringify(event), projectId).row)
  await engine.client.insert({ table: 'events', values: rows, format: 'JSONEachRow' })
}

/** A root client's credentials as request headers. */
export async function rootHeaders(engine: Engine): Promise<Record<string, string>> {
  const root = await createApiClient(engine, { type: 'root' })
  return { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
}

/** A harness (no rate limit) with one project holding `events`, and root credentials. */
export async function startWithEvents(
  project: { id: string; timezone: string },
  events: object[],
): Promise<{ h: Harness; auth: Record<string, string> }> {
  const h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
  await createProject(h.engine, project)
  await insertRawEvents(h.engine, events, project.id)
  return { h, auth: await rootHeaders(h.engine) }
}
