// Gateway settings, read once from the environment. A bad value stops startup with a message naming it.
import net from 'node:net'
import path from 'node:path'
import express from 'express'
import type { CacheSettings } from '../queries/run/result-cache'

/** The longest time limit a gateway accepts (QUARRY_MAX_EXECUTION_SECONDS): what a compaction keeps replaced rows by. */
export const MAX_EXECUTION_SECONDS_LIMIT = 3_600

export interface EngineSettings {
  mode: 'embedded' | 'server'
  dataDir: string
  url?: string
  user: string
  password: string
  /** Server mode: the user migrations run as (the serving user when unset). */
  adminUser?: string
  adminPassword?: string
  database: string
  cluster?: string
  /** Server mode: data statements in flight at once (embedded runs one; see server/embedded-lanes.ts). */
  maxInFlight?: number
  /** Embedded: how long memory that statements freed stays with the engine before going back to the OS (server/engine.ts). */
  memoryDecaySeconds: number
}

export interface Config {
  port: number
  /** The address the API listens on. */
  host: string
  engine: EngineSettings
  maxExecutionSeconds: number
  maxResultRows: number
  maxMemoryBytes: number
  rateLimit: { requests: number; windowMs: number }
  maxConcurrentQueries: number
  /** Data statements that may wait for the engine, over all clients (503 past it). */
  engineQueue: number
  /** An export stream whose client takes none of its bytes for this long is cut. */
  streamIdleSeconds: number
  /** Export streams (ndjson, csv) one client may have open at once (429 past it). */
  maxStreamsPerClient: number
  authCacheMs: number
  /** scrypt credential checks started per second over the whole process. */
  authChecksPerSecond: number
  sessionLookbackHours: number
  cache: CacheSettings
  demoEvents: number
  logLevel: string
  /** The Prometheus listener; `port` 0 turns it off. */
  metrics: { host: string; port: number }
  /** Express's `trust proxy`: which proxies' X-Forwarded-For decides a request's address. */
  trustProxy: boolean | number | string
  /** After SIGTERM, how long in-flight requests may finish before their connections are cut. */
  shutdownGraceMs: number
  /** How often the gateway compacts settled sessions (server/admin/compact.ts), from startup; 0: never. */
  compactSeconds: number
  /** Unset: pretty on a terminal, JSON otherwise. */
  logFormat?: 'json' | 'pretty'
}

export class ConfigError extends Error {
  constructor(
    readonly setting: string,
    problem: string,
  ) {
    super(`${setting}: ${problem}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

function readInteger(env: Env, name: string, { fallback, min, max }: { fallback: number; min: number; max: number }): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  // Decimal digits exactly as written: no blanks, signs, exponents or hex (Number() would read all of those).
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`)
  return value
}

function readIdentifier(env: Env, name: string, fallback: string | undefined): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)) throw new ConfigError(name, `must be a plain identifier (letters, digits, _), got "${raw}"`)
  return raw
}

function readUrl(env: Env, name: string): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `not a URL: "${raw}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(name, 'must be an http:// or https:// URL')
  return raw
}

/** An IP address or a host name (letters, digits, dots, dashes), for a listener to bind. */
function readHost(env: Env, name: string, fallback: string): string {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!net.isIP(raw) && !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(raw)) {
    throw new ConfigError(name, `must be an IP address or a host name, got "${raw}"`)
  }
  return raw
}

/** `false` (the default), `true`, a hop count, or addresses, subnets and Express's names (`loopback`, ...). */
function readTrustProxy(env: Env, name: string): boolean | number | string {
  const raw = env[name] ?? ''
  // TRICKY: Express trims each entry, so " 2" would silently be an address (0.0.0.2), not a hop count.
  if (raw !== raw.trim())
    throw new ConfigError(name, `expected true, false, a hop count or addresses/subnets without blanks around them, got "${raw}"`)
  if (raw === '' || raw === 'false') return false
  if (raw === 'true') return true
  if (/^\d+$/.test(raw)) return Number(raw)
  try {
    express().set('trust proxy', raw)
  } catch (error) {
    throw new ConfigError(name, `expected true, false, a hop count or addresses/subnets (${(error as Error).message})`)
  }
  return raw
}
/** Data statements a ClickHouse server runs at once for one gateway, unless QUARRY_ENGINE_MAX_IN_FLIGHT says otherwise. */
export const SERVER_IN_FLIGHT = 4

/** Credential checks a second: about two thirds of one core's time at tens of ms per check, so a flood of guesses leaves the rest to queries. */
export const DEFAULT_CHECKS_PER_SECOND = 10

const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const
const LOG_FORMATS = ['json', 'pretty'] as const

export function loadConfig(env: Env = process.env): Config {
  const url = readUrl(env, 'CLICKHOUSE_URL')
  const logLevel = env.LOG_LEVEL || 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`)
  const logFormat = env.LOG_FORMAT || undefined
  if (logFormat !== undefined && !(LOG_FORMATS as readonly string[]).includes(logFormat))
    throw new ConfigError('LOG_FORMAT', `must be one of ${LOG_FORMATS.join(', ')}`)
  return {
    port: readInteger(env, 'PORT', { fallback: 3000, min: 0, max: 65535 }),
    host: readHost(env, 'HOST', '0.0.0.0'),
    engine: {
      mode: url ? 'server' : 'embedded',
      dataDir: path.resolve(env.QUARRY_DATA_DIR || '.data'),
      url,
      user: env.CLICKHOUSE_USER || 'default',
      password: env.CLICKHOUSE_PASSWORD || '',
      adminUser: env.CLICKHOUSE_ADMIN_USER || undefined,
      adminPassword: env.CLICKHOUSE_ADMIN_PASSWORD || '',
      database: readIdentifier(env, 'CLICKHOUSE_DATABASE', 'default') as string,
      cluster: readIdentifier(env, 'CLICKHOUSE_CLUSTER', undefined),
      maxInFlight: readInteger(env, 'QUARRY_ENGINE_MAX_IN_FLIGHT', { fallback: SERVER_IN_FLIGHT, min: 1, max: 1000 }),
      memoryDecaySeconds: readInteger(env, 'QUARRY_ENGINE_MEMORY_DECAY_SECONDS', { fallback: 600, min: 0, max: 86_400 }),
    },
    maxExecutionSeconds: readInteger(env, 'QUARRY_MAX_EXECUTION_SECONDS', { fallback: 15, min: 1, max: MAX_EXECUTION_SECONDS_LIMIT }),
    maxResultRows: readInteger(env, 'QUARRY_MAX_RESULT_ROWS', { fallback: 1_000_000, min: 1, max: 1_000_000_000 }),
    maxMemoryBytes: readInteger(env, 'QUARRY_MAX_MEMORY_BYTES', { fallback: 4 * 1024 ** 3, min: 1024 ** 2, max: 1024 ** 4 }),
    rateLimit: {
      requests: readInteger(env, 'QUARRY_RATE_LIMIT', { fallback: 100, min: 1, max: 1_000_000 }),
      windowMs: readInteger(env, 'QUARRY_RATE_WINDOW_MS', { fallback: 10_000, min: 100, max: 3_600_000 }),
    },
    maxConcurrentQueries: readInteger(env, 'QUARRY_MAX_CONCURRENT_QUERIES', { fallback: 8, min: 1, max: 1000 }),
    engineQueue: readInteger(env, 'QUARRY_ENGINE_QUEUE', { fallback: 64, min: 1, max: 100_000 }),
    streamIdleSeconds: readInteger(env, 'QUARRY_STREAM_IDLE_SECONDS', { fallback: 60, min: 1, max: 86_400 }),
    maxStreamsPerClient: readInteger(env, 'QUARRY_MAX_STREAMS_PER_CLIENT', { fallback: 2, min: 1, max: 1000 }),
    authCacheMs: readInteger(env, 'QUARRY_AUTH_CACHE_MS', { fallback: 5_000, min: 0, max: 600_000 }),
    authChecksPerSecond: readInteger(env, 'QUARRY_AUTH_CHECKS_PER_SECOND', { fallback: DEFAULT_CHECKS_PER_SECOND, min: 1, max: 10_000 }),
    sessionLookbackHours: readInteger(env, 'QUARRY_SESSION_LOOKBACK_HOURS', { fallback: 24, min: 1, max: 24 * 366 }),
    cache: {
      maxBytes: readInteger(env, 'QUARRY_CACHE_BYTES', { fallback: 64 * 1024 ** 2, min: 0, max: 1024 ** 4 }),
      versionPollMs: readInteger(env, 'QUARRY_CACHE_VERSION_MS', { fallback: 1_000, min: 0, max: 60_000 }),
      recentMaxAgeSeconds: readInteger(env, 'QUARRY_CACHE_RECENT_SECONDS', { fallback: 5, min: 0, max: 3_600 }),
      settledMaxAgeSeconds: readInteger(env, 'QUARRY_CACHE_SETTLED_SECONDS', { fallback: 300, min: 0, max: 86_400 }),
    },
    demoEvents: readInteger(env, 'QUARRY_DEMO_EVENTS', { fallback: 200_000, min: 0, max: 100_000_000 }),
    logLevel,
    metrics: {
      host: readHost(env, 'QUARRY_METRICS_HOST', '127.0.0.1'),
      port: readInteger(env, 'QUARRY_METRICS_PORT', { fallback: 9464, min: 0, max: 65535 }),
    },
    trustProxy: readTrustProxy(env, 'QUARRY_TRUST_PROXY'),
    shutdownGraceMs: readInteger(env, 'QUARRY_SHUTDOWN_GRACE_MS', { fallback: 10_000, min: 0, max: 600_000 }),
    compactSeconds: readInteger(env, 'QUARRY_COMPACT_SECONDS', { fallback: 300, min: 0, max: 86_400 }),
    logFormat: logFormat as Config['logFormat'],
  }
}
