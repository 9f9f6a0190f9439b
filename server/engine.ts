// The one owner of the engine's connections, embedded (chDB in-process) or a ClickHouse server: a
// writable admin connection for migrations, the demo seed and the CLI, and read-only serving lanes.
import crypto from 'node:crypto'
import fs from 'node:fs'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { AdminRunner } from '../queries/run/admin-run'
import { Runner, type EngineLanes, type Guardrails, type RunObserver } from '../queries/run/runner'
import { SERVER_IN_FLIGHT, type Config, type EngineSettings } from './config'
import { EmbeddedLanes } from './embedded-lanes'
import { ServerLanes } from './server-lanes'

type ClientOptions = NonNullable<Parameters<typeof createClient>[0]>

export interface Engine {
  /** The writable connection, for tests and benches; server/ code goes through `admin`. */
  client: ClickHouseClient
  /**
   * Embedded only: the data version without asking the engine (see countWrites), undefined while a write is
   * under way. A server reads it with
   * a statement, since other clients write to it.
   */
  dataVersion?(): string | undefined
  /** Migrations, demo seed, imports and the CLI run their templates here. The gateway serves only through `openLanes`. */
  admin: AdminRunner
  settings: EngineSettings
  /** Read-only serving lanes under these guardrails, reporting statements they cannot stop to `observer`; closed with the engine. */
  openLanes(guardrails: Guardrails, observer?: RunObserver): EngineLanes
  close(): Promise<void>
}

export class EngineBusyError extends Error {
  constructor(dataDir: string) {
    super(
      `The data directory ${dataDir} is in use by another Quarry process (a running gateway or CLI). ` +
        'Stop it first, or point QUARRY_DATA_DIR at another directory.',
    )
    this.name = 'EngineBusyError'
  }
}

function isLockFailure(error: unknown): boolean {
  const text = String((error as Error)?.message ?? '') + String((error as { cause?: Error })?.cause?.message ?? '')
  return (error as { code?: string })?.code === 'CHDB_CONNECTION' || /Cannot lock file|CANNOT_OPEN_FILE/.test(text)
}

type Call = (params: unknown) => Promise<{ stream?: NodeJS.ReadableStream }>
const SERIALIZED_CALLS = new Set(['query', 'exec', 'command', 'insert'])

/**
 * TRICKY: libchdb keeps the partial output of a statement that fails mid-result (a timeout, a row cap)
 * and prepends it to the *next* statement's output, which would hand one request another's rows. The
 * engine runs one statement at a time anyway, so this wrapper queues calls itself and, after a failed
 * one, runs a throwaway statement that swallows any leftover before the next call may start.
 */
export function isolateFailedOutput<T extends object>(connection: T): T {
  let tail: Promise<unknown> = Promise.resolve()
  const flush = async (call: Call) => {
    const result = await call({ query: "SELECT 'flush' AS leftover", format: 'JSONEachRow', query_id: crypto.randomUUID() })
    for await (const chunk of result.stream ?? []) void chunk
  }
  return new Proxy(connection, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      // Private fields need the real object as `this`.
      if (typeof property !== 'string' || !SERIALIZED_CALLS.has(property)) return value.bind(target)
      const call = (value as Call).bind(target)
      const query = (Reflect.get(target, 'query', receiver) as Call).bind(target)
      return (params: unknown) => {
        const run = tail.then(async () => {
          try {
            return await call(params)
          } catch (error) {
            await flush(query).catch(() => undefined)
            throw error
          }
        })
        tail = run.catch(() => undefined)
        return run
      }
    },
  })
}

/** Request settings the chDB connection passes as options, not as SETs (see statementSettingsOnly). */
const OPTION_SETTINGS = new Set(['default_format'])
const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * TRICKY: chDB's connection gives a call's `clickhouse_settings` to the engine as `SET`s before the
 * statement, and a SET lasts for the whole session, where a server takes them for that one request. So
 * after each call that brings settings, this wrapper sets them back to their defaults (the writable
 * connection sets nothing of its own), inside the same serialized call: a compaction's background
 * `priority` never reaches the migration or import that follows it.
 */
export function statementSettingsOnly<T extends object>(connection: T): T {
  return new Proxy(connection, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function') return value
      if (typeof property !== 'string' || !SERIALIZED_CALLS.has(property)) return value.bind(target)
      const call = (value as Call).bind(target)
      const command = (Reflect.get(target, 'command', receiver) as Call).bind(target)
      return async (params: { clickhouse_settings?: Record<string, unknown> }) => {
        const names = Object.entries(params.clickhouse_settings ?? {})
          .filter(([name, setting]) => setting !== undefined && !OPTION_SETTINGS.has(name) && SETTING_NAME.test(name))
          .map(([name]) => name)
        if (!names.length) return call(params)
        try {
          return await call(params)
        } finally {
          await command({ query: `SET ${names.map((name) => `${name} = DEFAULT`).join(', ')}`, query_id: crypto.randomUUID() })
        }
      }
    },
  })
}

const WRITE_CALLS = new Set(['command', 'insert', 'exec'])

/** The writes of the engine's writable connection: begun and ended (`count`), and under way now. */
export interface WriteCount {
  count: number
  running: number
}

/**
 * `connection`, counting in `writes` every call that can write (DDL, INSERT ... SELECT and inserts go
 * through `command`, `insert` and `exec`; `query` reads), once when it starts and once when it ends.
 * Embedded, that count is the data version: this connection is the only one that can write to the data
 * directory (the serving sessions are read-only, and another process cannot open the directory while this
 * one holds its lock). While a write runs there is no version (`embeddedDataVersion`), so nothing read
 * meanwhile is cached; reading the count costs nothing, where a statement would run before every question.
 */
export function countWrites<T extends object>(connection: T, writes: WriteCount): T {
  return new Proxy(connection, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function' || typeof property !== 'string' || !WRITE_CALLS.has(property)) return value
      return async (...args: unknown[]) => {
        writes.count += 1
        writes.running += 1
        try {
          return await (value as (...callArgs: unknown[]) => Promise<unknown>).apply(target, args)
        } finally {
          writes.count += 1
          writes.running -= 1
        }
      }
    },
  })
}

/** The embedded data version: the count of writes begun and ended, none while one is under way. */
export const embeddedDataVersion = (writes: WriteCount) => (writes.running > 0 ? undefined : `writes:${writes.count}`)

/**
 * TRICKY: the embedded engine's allocator (jemalloc inside libchdb, built with `dirty_decay_ms:5000,
 * muzzy_decay_ms:0`) hands the memory statements freed back to the OS within seconds, while later
 * statements allocate, and every page used again is then a new page fault. Where a fault is dear (a VM
 * that reports freed pages to its host), a statement after a few seconds of quiet paid for it, several
 * times over (docs/measurements.md, "Engine memory"). So freed memory stays with the engine for
 * `memoryDecaySeconds`, and jemalloc's background thread hands it back while the gateway is quiet, not
 * during a statement.
 * jemalloc reads this once, when libchdb loads; an operator's own `JE_MALLOC_CONF` is left as it is.
 */
export function keepFreedMemory(
  settings: Pick<EngineSettings, 'memoryDecaySeconds'>,
  env: Record<string, string | undefined> = process.env,
): void {
  env.JE_MALLOC_CONF ??= `dirty_decay_ms:${settings.memoryDecaySeconds * 1000},background_thread:true`
}

/** What the engine tells its opener: each admin statement's name as it is sent (the gateway logs them at debug). */
export interface EngineObserver {
  adminStatement?(name: string): void
}

async function openEmbedded(settings: EngineSettings, observer: EngineObserver): Promise<Engine> {
  keepFreedMemory(settings)
  // Loaded lazily: server mode never touches the 500 MB native engine.
  const { createChdbConnection } = await import('chdb/connection')
  const { drainPending, Session } = await import('chdb')
  fs.mkdirSync(settings.dataDir, { recursive: true })
  let client: ClickHouseClient | undefined
  const writes: WriteCount = { count: 0, running: 0 }
  try {
    // TRICKY: chdb types its connection against its own copy of @clickhouse/client-common; the runtime
    // contract is the same, so the cast only bridges the two declaration copies.
    const connection = countWrites(
      isolateFailedOutput(statementSettingsOnly(createChdbConnection({ path: settings.dataDir }))),
      writes,
    ) as unknown as ClientOptions['connection']
    client = createClient({ connection })
    await client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((rs) => rs.json())
  } catch (error) {
    await client?.close().catch(() => undefined)
    if (isLockFailure(error)) throw new EngineBusyError(settings.dataDir)
    throw error
  }
  const opened = client
  const lanes: EmbeddedLanes[] = []
  return {
    client: opened,
    admin: new AdminRunner(opened, observer.adminStatement),
    settings,
    dataVersion: () => embeddedDataVersion(writes),
    openLanes(guardrails, observer) {
      const lane = new EmbeddedLanes({
        Session,
        dataDir: settings.dataDir,
        guardrails,
        onUnstoppable: (statement) => observer?.statementUnstoppable?.(statement),
      })
      lanes.push(lane)
      return lane
    },
    async close() {
      for (const lane of lanes.splice(0)) lane.close()
      await opened.close()
      await drainPending()
    },
  }
}

function connect(settings: EngineSettings, user: string, password = ''): ClickHouseClient {
  return createClient({ url: settings.url, username: user, password, database: settings.database, request_timeout: 300_000 })
}

/** Serving as `CLICKHOUSE_USER` (a `readonly = 2` profile); migrations as `CLICKHOUSE_ADMIN_USER` when set. */
function openServer(settings: EngineSettings, observer: EngineObserver): Engine {
  const serving = connect(settings, settings.user, settings.password)
  const admin = settings.adminUser ? connect(settings, settings.adminUser, settings.adminPassword) : serving
  return {
    client: admin,
    admin: new AdminRunner(admin, observer.adminStatement),
    settings,
    openLanes: (guardrails, observer) =>
      new ServerLanes({
        client: serving,
        guardrails,
        maxInFlight: settings.maxInFlight ?? SERVER_IN_FLIGHT,
        onUnstoppable: (statement) => observer?.statementUnstoppable?.(statement),
      }),
    async close() {
      await serving.close()
      if (admin !== serving) await admin.close()
    },
  }
}

export async function openEngine(settings: EngineSettings, observer: EngineObserver = {}): Promise<Engine> {
  return settings.mode === 'embedded' ? openEmbedded(settings, observer) : openServer(settings, observer)
}

/** The gateway's runner over this engine's serving lanes. */
export function createRunner(engine: Engine, config: Guardrails & Pick<Config, 'engineQueue'>, observer?: RunObserver): Runner {
  return new Runner({
    lanes: engine.openLanes(config, observer),
    guardrails: config,
    maxQueued: config.engineQueue,
    observer,
    dataVersion: engine.dataVersion,
  })
}
