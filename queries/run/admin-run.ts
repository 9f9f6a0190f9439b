// The admin path: migrations, the demo seed, imports and the CLI's projects and clients run their
// reviewed statements here, on the engine's writable connection (server/engine.ts builds it). The
// gateway's serving lanes (run.ts) never write. A statement's own settings go with it as request settings,
// which the embedded connection keeps to that statement (server/engine.ts, statementSettingsOnly).
import type { ClickHouseClient } from '@clickhouse/client'
import type { CompiledQuery } from '../core/compiled'

/** A table an admin insert may name: one the importer or a migration made, never a client's text. */
const TABLE_NAME = /^[a-z_][a-z0-9_]*$/

export class AdminRunner {
  /** @param onStatement told each statement's template (or insert's table) as it is sent: the gateway logs it at debug. */
  constructor(
    private readonly client: ClickHouseClient,
    private readonly onStatement?: (name: string) => void,
  ) {}

  /** A statement without rows to read (DDL, INSERT ... SELECT). */
  async command(query: CompiledQuery): Promise<void> {
    this.onStatement?.(query.template)
    await this.client.command({ query: query.sql, query_params: { ...query.params }, clickhouse_settings: { ...query.settings } })
  }

  async rows<T>(query: CompiledQuery): Promise<T[]> {
    this.onStatement?.(query.template)
    const result = await this.client.query({
      query: query.sql,
      query_params: { ...query.params },
      format: 'JSONEachRow',
      clickhouse_settings: { ...query.settings },
    })
    return result.json<T>()
  }

  /** Rows sent as JSONEachRow data, never as SQL text (an import's staged lines). */
  async insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (!TABLE_NAME.test(table)) throw new Error(`Not a table an admin insert may name: ${table}`)
    this.onStatement?.(`insert into ${table}`)
    await this.client.insert({ table, values: [...rows], format: 'JSONEachRow' })
  }
}
