// A ClickHouse server's serving lanes: data statements as the serving user, each with its own query id,
// cancelled by the server when the request's connection closes, and done with only once the server says
// the statement ended; control statements and the looks for cancelled statements on a control client.
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client'
import { HEAVY_PRIORITY, QUESTION_PRIORITY } from './priorities'
import {
  STUCK_GRACE_MS,
  guardrailSettings,
  type EngineLanes,
  type Guardrails,
  type Statement,
  type StatementOutput,
  type UnstoppableStatement,
} from '../queries/run/runner'

const STATEMENT_ID = /^[0-9a-f-]{36}$/
/** How often a cancelled statement is looked for among the server's running statements (and KILLed). */
const END_CHECK_MS = 50
/** How often a statement given up on is looked for, until it has ended. */
const WATCH_MS = 1_000
/** A look that fails this many times in a row ends the watch: the server cannot say any more. */
const MAX_FAILED_WATCHES = 60
/** A look or KILL that takes longer failed (a statement being killed can slow the looks beside it). */
const LOOK_TIMEOUT_MS = 5_000

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

/**
 * SQL: the running statement `id` names, by its query id (a server) or its `log_comment` (chDB, which names
 * its own query ids). TRICKY: `id` is spliced, checked against STATEMENT_ID in `data`: a look-up beside
 * the data statements takes no parameters.
 */
const matching = (id: string) => `(query_id = '${id}' OR Settings['log_comment'] = '${id}')`

export interface ServerLanesOptions {
  client: ClickHouseClient
  /** Where control statements, looks for cancelled statements and KILLs go: `client` by default. */
  controlClient?: ClickHouseClient
  guardrails: Guardrails
  maxInFlight: number
  /**
   * Looks for a cancelled statement among the server's running ones before giving up on it; by default as
   * many as fit in the time limit + STUCK_GRACE_MS (the server stops a statement at the time limit itself).
   */
  maxEndChecks?: number
  /** Told of each cancelled statement still running after `maxEndChecks` looks. */
  onUnstoppable?: (statement: UnstoppableStatement) => void
}

export class ServerLanes implements EngineLanes {
  readonly maxInFlight: number
  /** A server runs heavy statements beside the data statements, as many at once as those. */
  readonly heavyInFlight: number
  private readonly client: ClickHouseClient
  private readonly controlClient: ClickHouseClient
  private readonly settings: ClickHouseSettings
  private readonly options: ServerLanesOptions
  private readonly maxEndChecks: number
  /** Ids of cancelled statements given up on that the server still ran when last looked for. */
  private readonly givenUp = new Set<string>()

  constructor(options: ServerLanesOptions) {
    this.client = options.client
    this.controlClient = options.controlClient ?? options.client
    this.options = options
    this.maxInFlight = options.maxInFlight
    this.heavyInFlight = options.maxInFlight
    this.maxEndChecks = options.maxEndChecks ?? Math.ceil((options.guardrails.maxExecutionSeconds * 1000 + STUCK_GRACE_MS) / END_CHECK_MS)
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

  /**
   * Runs a statement; when its signal aborts, settles only once the server no longer runs it (see
   * untilEnded), so that its turn is not given to another statement while it still works. The statement
   * carries its id as its query id and as `log_comment`, by which it is found.
   */
  async data(statement: Statement): Promise<StatementOutput> {
    if (!STATEMENT_ID.test(statement.id)) throw new Error(`Bad statement id ${statement.id}`)
    try {
      const result = await this.client.query({
        query: statement.sql,
        query_params: { ...statement.params },
        format: statement.format,
        // The statement's own settings over the lanes' (its priority), but never over `readonly`.
        clickhouse_settings: { ...this.settings, ...statement.settings, readonly: '2', log_comment: statement.id } as ClickHouseSettings,
        abort_signal: statement.signal,
        query_id: statement.id,
      })
      return { text: await result.text(), ...readSummary(result.response_headers) }
    } catch (error) {
      if (statement.signal.aborted) await this.untilEnded(statement.id)
      throw error
    }
  }

  /** Cancelled statements given up on that the server still ran when last looked for. */
  unstoppable(): number {
    return this.givenUp.size
  }

  /**
   * Resolves once the server no longer lists statement `id` as running, KILLing it between looks (a
   * closed connection cancels it, but only once the server notices). After `maxEndChecks` looks it gives
   * up: the statement is reported and counted as unstoppable, and watched until it ends.
   */
  private async untilEnded(id: string): Promise<void> {
    for (let checks = 1; await this.stillRuns(id).catch(() => true); checks += 1) {
      if (checks >= this.maxEndChecks) {
        this.givenUp.add(id)
        this.options.onUnstoppable?.({ id, tries: checks })
        void this.watch(id)
        return
      }
      await this.kill(id).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, END_CHECK_MS))
    }
  }

  /** Looks for a statement given up on until it has ended (or MAX_FAILED_WATCHES looks in a row failed). */
  private async watch(id: string): Promise<void> {
    for (let failed = 0; failed < MAX_FAILED_WATCHES; ) {
      const runs = await this.stillRuns(id).catch(() => undefined)
      if (runs === false) break
      failed = runs === undefined ? failed + 1 : 0
      await this.kill(id).catch(() => undefined)
      // A watch never keeps the process alive.
      await new Promise((resolve) => setTimeout(resolve, WATCH_MS).unref())
    }
    this.givenUp.delete(id)
  }

  private async stillRuns(id: string): Promise<boolean> {
    const text = await this.ask(`SELECT count() AS n FROM system.processes WHERE ${matching(id)}`)
    return Number((JSON.parse(text) as { n: number | string }).n) > 0
  }

  private async kill(id: string): Promise<void> {
    await this.ask(`KILL QUERY WHERE ${matching(id)} ASYNC`)
  }

  /**
   * A look-up of these lanes' own, without parameters, beside the data statements. TRICKY: its empty
   * `log_comment` keeps it from matching the statement it looks for where settings outlive a statement
   * (chDB's connection SETs them on its session).
   */
  private async ask(sql: string): Promise<string> {
    const signal = AbortSignal.timeout(LOOK_TIMEOUT_MS)
    const result = await this.controlClient.query({
      query: sql,
      format: 'JSONEachRow',
      clickhouse_settings: { readonly: '2', log_comment: '' },
      abort_signal: signal,
    })
    return result.text()
  }

  /** A server runs statements side by side: a bounded one only needs its own queue (the runner's). */
  bounded(statement: Statement): Promise<StatementOutput> {
    return this.data(statement)
  }

  /** A heavy statement as a data statement at HEAVY_PRIORITY: it pauses at each block while questions run. */
  heavy(statement: Statement): Promise<StatementOutput> {
    return this.data({ ...statement, settings: { ...statement.settings, priority: HEAVY_PRIORITY } })
  }

  async control(sql: string, signal: AbortSignal): Promise<string> {
    const result = await this.controlClient.query({
      query: sql,
      format: 'JSONEachRow',
      clickhouse_settings: { readonly: '2' },
      abort_signal: signal,
    })
    return result.text()
  }
}
