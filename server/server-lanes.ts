// A ClickHouse server's serving lanes: data statements as the serving user, each with its own query id,
// cancelled by the server when the request's connection closes; control statements on the same client.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { QUESTION_PRIORITY } from './priorities'
import { guardrailSettings, type EngineLanes, type Guardrails, type Statement, type StatementOutput } from '../queries/core/run'

function readSummary(headers: Record<string, unknown>): { readRows?: number; readBytes?: number } {
  const raw = headers['x-clickhouse-summary']
  if (typeof raw !== 'string') return {}
  try {
    const summary = JSON.parse(raw) as { read_rows?: string; read_bytes?: string }
    return { readRows: Number(summary.read_rows), readBytes: Number(summary.read_bytes) }
  } catch {
    return {}
  }
}

export interface ServerLanesOptions {
  client: ClickHouseClient
  guardrails: Guardrails
  maxInFlight: number
}

export class ServerLanes implements EngineLanes {
  readonly maxInFlight: number
  private readonly client: ClickHouseClient
  private readonly settings: ClickHouseSettings

  constructor(options: ServerLanesOptions) {
    this.client = options.client
    this.maxInFlight = options.maxInFlight
    // Request settings apply to the whole statement. `readonly = 2` repeats the serving user's profile
    // for a deployment that serves with a writable user; closing the connection (the abort signal)
    // makes the server cancel the statement. Questions run at QUESTION_PRIORITY, as embedded, so that a
    // gateway's compaction on the same server (BACKGROUND_PRIORITY) yields to them.
    this.settings = {
      ...guardrailSettings(options.guardrails),
      priority: String(QUESTION_PRIORITY),
      readonly: '2',
      cancel_http_readonly_queries_on_client_close: 1,
    } as ClickHouseSettings
  }

  async data(statement: Statement): Promise<StatementOutput> {
    const result = await this.client.query({
      query: statement.sql,
      query_params: { ...statement.params },
      format: statement.format,
      clickhouse_settings: this.settings,
      abort_signal: statement.signal,
      query_id: statement.id,
    })
    return { text: await result.text(), ...readSummary(result.response_headers) }
  }

  /** A server runs statements side by side: a bounded one only needs its own queue (the runner's). */
  bounded(statement: Statement): Promise<StatementOutput> {
    return this.data(statement)
  }

  async control(sql: string, signal: AbortSignal): Promise<string> {
    const result = await this.client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: { readonly: '2' }, abort_signal: signal })
    return result.text()
  }
}
