// The one owner of the ClickHouse client: embedded (chDB in-process) or a ClickHouse server.
import fs from 'node:fs'
import { createClient, type ClickHouseClient } from '@clickhouse/client'

type ClientOptions = NonNullable<Parameters<typeof createClient>[0]>
import type { EngineSettings } from './config'

export interface Engine {
  client: ClickHouseClient
  settings: EngineSettings
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

async function openEmbedded(settings: EngineSettings): Promise<Engine> {
  // Loaded lazily: server mode never touches the 500 MB native engine.
  const { createChdbConnection } = await import('chdb/connection')
  const { drainPending } = await import('chdb')
  fs.mkdirSync(settings.dataDir, { recursive: true })
  // TRICKY: chdb types its connection against its own copy of @clickhouse/client-common; the runtime
  // contract is the same, so the cast only bridges the two declaration copies.
  const connection = createChdbConnection({ path: settings.dataDir }) as unknown as ClientOptions['connection']
  const client = createClient({ connection })
  try {
    await client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((rs) => rs.json())
  } catch (error) {
    await client.close().catch(() => undefined)
    if (isLockFailure(error)) throw new EngineBusyError(settings.dataDir)
    throw error
  }
  return {
    client,
    settings,
    async close() {
      await client.close()
      await drainPending()
    },
  }
}

function openServer(settings: EngineSettings): Engine {
  const client = createClient({
    url: settings.url,
    username: settings.user,
    password: settings.password,
    database: settings.database,
    request_timeout: 300_000,
  })
  return { client, settings, close: () => client.close() }
}

export async function openEngine(settings: EngineSettings): Promise<Engine> {
  return settings.mode === 'embedded' ? openEmbedded(settings) : openServer(settings)
}
