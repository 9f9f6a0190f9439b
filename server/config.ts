// Gateway settings, read once from the environment. A bad value stops startup with a message naming it.
import path from 'node:path'
import type { CacheSettings } from '../queries/result-cache'

export interface EngineSettings {
  mode: 'embedded' | 'server'
  dataDir: string
  url?: string
  user: string
  password: string
  database: string
  cluster?: string
}

export interface Config {
  port: number
  engine: EngineSettings
  maxExecutionSeconds: number
  maxResultRows: number
  maxMemoryBytes: number
  rateLimit: { requests: number; windowMs: number }
  maxConcurrentQueries: number
  authCacheMs: number
  sessionLookbackHours: number
  cache: CacheSettings
  demoEvents: number
  logLevel: string
}

export class ConfigError extends Error {
  constructor(readonly setting: string, problem: string) {
    super(`${setting}: ${problem}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw.trim())
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

const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const

export function loadConfig(env: Env = process.env): Config {
  const url = readUrl(env, 'CLICKHOUSE_URL')
  const logLevel = env.LOG_LEVEL || 'info'
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`)
  return {
    port: readInteger(env, 'PORT', 3000, 0, 65535),
    engine: {
      mode: url ? 'server' : 'embedded',
      dataDir: path.resolve(env.QUARRY_DATA_DIR || '.data'),
      url,
      user: env.CLICKHOUSE_USER || 'default',
      password: env.CLICKHOUSE_PASSWORD || '',
      database: readIdentifier(env, 'CLICKHOUSE_DATABASE', 'default') as string,
      cluster: readIdentifier(env, 'CLICKHOUSE_CLUSTER', undefined),
    },
    maxExecutionSeconds: readInteger(env, 'QUARRY_MAX_EXECUTION_SECONDS', 15, 1, 3600),
    maxResultRows: readInteger(env, 'QUARRY_MAX_RESULT_ROWS', 1_000_000, 1, 1_000_000_000),
    maxMemoryBytes: readInteger(env, 'QUARRY_MAX_MEMORY_BYTES', 4 * 1024 ** 3, 1024 ** 2, 1024 ** 4),
    rateLimit: {
      requests: readInteger(env, 'QUARRY_RATE_LIMIT', 100, 1, 1_000_000),
      windowMs: readInteger(env, 'QUARRY_RATE_WINDOW_MS', 10_000, 100, 3_600_000),
    },
    maxConcurrentQueries: readInteger(env, 'QUARRY_MAX_CONCURRENT_QUERIES', 8, 1, 1000),
    authCacheMs: readInteger(env, 'QUARRY_AUTH_CACHE_MS', 5_000, 0, 600_000),
    sessionLookbackHours: readInteger(env, 'QUARRY_SESSION_LOOKBACK_HOURS', 24, 1, 24 * 366),
    cache: {
      maxBytes: readInteger(env, 'QUARRY_CACHE_BYTES', 64 * 1024 ** 2, 0, 1024 ** 4),
      versionPollMs: readInteger(env, 'QUARRY_CACHE_VERSION_MS', 1_000, 0, 60_000),
      recentMaxAgeSeconds: readInteger(env, 'QUARRY_CACHE_RECENT_SECONDS', 5, 0, 3_600),
      settledMaxAgeSeconds: readInteger(env, 'QUARRY_CACHE_SETTLED_SECONDS', 300, 0, 86_400),
    },
    demoEvents: readInteger(env, 'QUARRY_DEMO_EVENTS', 200_000, 0, 100_000_000),
    logLevel,
  }
}
