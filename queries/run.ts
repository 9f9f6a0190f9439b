// The only place a compiled query reaches ClickHouse. Every statement runs read-only, time-limited and
// capped; engine failures become typed QueryErrors.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import type { CompiledQuery } from './compiled'
import { QueryError } from './errors'

export interface Guardrails {
  maxExecutionSeconds: number
  maxResultRows: number
  maxMemoryBytes: number
}

export interface RunOptions {
  signal?: AbortSignal
  queryId?: string
}

export interface RunResult<T> {
  rows: T[]
  durationMs: number
  /** Rows and bytes read, when the engine reports them (a server does, in X-ClickHouse-Summary). */
  readRows?: number
  readBytes?: number
}

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

export function guardrailSettings(guardrails: Guardrails): ClickHouseSettings {
  return {
    // readonly=2: reads only, but the settings below may still be set per query.
    readonly: '2',
    max_execution_time: guardrails.maxExecutionSeconds,
    max_result_rows: String(guardrails.maxResultRows),
    result_overflow_mode: 'throw',
    max_memory_usage: String(guardrails.maxMemoryBytes),
    cancel_http_readonly_queries_on_client_close: 1,
    // TRICKY: the embedded engine prints 64-bit integers as numbers, a server as strings; pin it.
    output_format_json_quote_64bit_integers: 0,
  }
}

const TIMEOUT_CODES = new Set(['159', '160'])
const UNAVAILABLE = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|socket hang up|Timeout error/i

export function toQueryError(error: unknown): unknown {
  const code = (error as { code?: string }).code
  if (code && TIMEOUT_CODES.has(String(code))) return new QueryError('timeout', 'The query took longer than the time limit')
  if (UNAVAILABLE.test(String((error as Error)?.message)) || code === 'ECONNREFUSED') {
    return new QueryError('engine_unavailable', 'ClickHouse is not reachable')
  }
  return error
}

export class Runner {
  private readonly settings: ClickHouseSettings

  constructor(
    private readonly client: ClickHouseClient,
    guardrails: Guardrails,
  ) {
    this.settings = guardrailSettings(guardrails)
  }

  async run<T>(query: CompiledQuery, options: RunOptions = {}): Promise<RunResult<T>> {
    const started = performance.now()
    try {
      const result = await this.client.query({
        query: query.sql,
        query_params: query.params,
        format: 'JSONEachRow',
        clickhouse_settings: this.settings,
        abort_signal: options.signal,
        query_id: options.queryId,
      })
      const rows = await result.json<T>()
      return { rows, durationMs: performance.now() - started, ...readSummary(result.response_headers) }
    } catch (error) {
      throw toQueryError(error)
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.client.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((rs) => rs.json())
      return true
    } catch {
      return false
    }
  }
}
