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

/** The guardrails as a statement's own `SETTINGS` clause. */
export function guardrailClause(guardrails: Guardrails): string {
  const settings: Record<string, string | number> = {
    readonly: 2,
    max_execution_time: guardrails.maxExecutionSeconds,
    max_result_rows: guardrails.maxResultRows,
    result_overflow_mode: "'throw'",
    max_memory_usage: guardrails.maxMemoryBytes,
    // TRICKY: the embedded engine prints 64-bit integers as numbers, a server as strings; pin it.
    output_format_json_quote_64bit_integers: 0,
  }
  return `SETTINGS ${Object.entries(settings).map(([name, value]) => `${name} = ${value}`).join(', ')}`
}

// TRICKY: the embedded connection turns `clickhouse_settings` into session-wide `SET`s, so a
// `readonly` sent that way would outlive the query and lock the whole process. The guardrails
// therefore travel in each statement's own SETTINGS clause (scoped to it on both engines); only
// HTTP-layer switches (cancel on disconnect, for a server) go as request settings.
export const SERVER_REQUEST_SETTINGS: ClickHouseSettings = { cancel_http_readonly_queries_on_client_close: 1 }

const TIMEOUT_CODES = new Set(['159', '160'])
const CANNOT_COMPILE_REGEXP = '427'
const UNAVAILABLE = /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|socket hang up|Timeout error/i

export function toQueryError(error: unknown): unknown {
  const code = (error as { code?: string }).code
  if (code && TIMEOUT_CODES.has(String(code))) return new QueryError('timeout', 'The query took longer than the time limit')
  // JavaScript accepts some patterns RE2 does not (look-arounds, back-references).
  if (String(code) === CANNOT_COMPILE_REGEXP) {
    return new QueryError('invalid_request', 'A regular expression in "filters" is not valid RE2 syntax', [
      { path: ['filters'], message: 'regex values must be RE2 patterns (no look-around or back-references)' },
    ])
  }
  if (UNAVAILABLE.test(String((error as Error)?.message)) || code === 'ECONNREFUSED') {
    return new QueryError('engine_unavailable', 'ClickHouse is not reachable')
  }
  return error
}

export class Runner {
  private readonly clause: string

  constructor(
    private readonly client: ClickHouseClient,
    guardrails: Guardrails,
    private readonly requestSettings: ClickHouseSettings | undefined = undefined,
  ) {
    this.clause = guardrailClause(guardrails)
  }

  async run<T>(query: CompiledQuery, options: RunOptions = {}): Promise<RunResult<T>> {
    const { text, ...run } = await this.runText(query, options)
    const rows = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as T)
    return { rows, ...run }
  }

  /** The result as JSONEachRow text, one object a line: for streaming it on without re-encoding. */
  async runText(query: CompiledQuery, options: RunOptions = {}): Promise<Omit<RunResult<unknown>, 'rows'> & { text: string }> {
    const started = performance.now()
    try {
      const result = await this.client.query({
        query: `${query.sql}\n${this.clause}`,
        query_params: query.params,
        format: 'JSONEachRow',
        clickhouse_settings: this.requestSettings,
        abort_signal: options.signal,
        query_id: options.queryId,
      })
      const text = await result.text()
      return { text, durationMs: performance.now() - started, ...readSummary(result.response_headers) }
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
