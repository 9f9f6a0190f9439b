// The one admission point for statements: every data statement waits for a fair turn, runs under a
// deadline, is cancelled in the engine when its request goes away, and fails as a typed QueryError.
import crypto from 'node:crypto'
import { parseLines, type CompiledQuery, type OutputFormat, type Settings } from '../core/compiled'
import { toQueryError } from '../core/engine-errors'
import { QueryError } from '../core/errors'
import { inlineParams } from '../core/literals'
import type { Lane } from '../core/pipeline'
import { FairScheduler, type KeptTurn } from './scheduler'

export interface Guardrails {
  maxExecutionSeconds: number
  maxResultRows: number
  maxMemoryBytes: number
}

/**
 * The guardrails as settings of the whole statement. TRICKY: they are given to the engine per
 * connection (embedded) or per request (server), never as a trailing `SETTINGS` clause, which a
 * template's own clause or a top-level `UNION ALL` could escape.
 */
export function guardrailSettings(guardrails: Guardrails): Record<string, string | number> {
  return {
    max_execution_time: guardrails.maxExecutionSeconds,
    max_result_rows: guardrails.maxResultRows,
    result_overflow_mode: 'throw',
    max_memory_usage: guardrails.maxMemoryBytes,
    // A GROUP BY past half the memory cap (the engine's advice) goes on with its states spilled to disk
    // instead of failing: a year of a large project's sessions is then an answer, slower. What it spills is
    // capped at the memory cap's size.
    max_bytes_before_external_group_by: Math.floor(guardrails.maxMemoryBytes / 2),
    max_temporary_data_on_disk_size_for_query: guardrails.maxMemoryBytes,
    // TRICKY: the embedded engine prints 64-bit integers as numbers, a server as strings; pin it.
    output_format_json_quote_64bit_integers: 0,
    // JSON text as JSON.stringify writes it: the engine escapes '/' as '\/' by default, which NDJSON exports
    // pass through untouched while JSON pages and CSV do not.
    output_format_json_escape_forward_slashes: 0,
    // The sets of IN subqueries (session ids) are built once, as the statement runs, not a second time for
    // index analysis: no primary key holds their columns (docs/measurements.md, "Filters").
    use_index_for_in_with_subqueries: 0,
    // TRICKY: the engine's rewrite of an OR of `match`es into one multiMatchAny fails with a LOGICAL_ERROR when
    // the matched text is an aggregate's alias in HAVING (a regex leaf OR-ed in a filter tree over regrouped
    // sessions), and it would match by another regex library than `match`'s.
    optimize_or_like_chain: 0,
  }
}

export interface Statement {
  sql: string
  params: Readonly<Record<string, unknown>>
  /** Unique per statement: the engine's query id, by which a cancelled statement is found and killed. */
  id: string
  signal: AbortSignal
  format: OutputFormat
  /** The statement's own settings (CompiledQuery.settings): the lanes apply them to it alone. */
  settings?: Readonly<Settings>
}

/** Rows and bytes a statement read, when the engine reports them. */
export interface ReadStats {
  readRows?: number
  readBytes?: number
}

export interface StatementOutput extends ReadStats {
  /** In the statement's format: JSONEachRow (one object a line) by default. */
  text: string
}

/** A block of a streamed statement's output: whole rows in the statement's format, as the engine wrote them. */
export interface StreamBlock extends ReadStats {
  /** UTF-8, passed on as it is (never decoded into a string and encoded again). */
  bytes: Uint8Array
  rows: number
}

/** One statement whose output is read a block at a time, each read under its own signal. */
export interface StatementStream {
  /** The next block, or undefined at the end; when `signal` aborts, the engine stops the read before this settles. */
  next(signal: AbortSignal): Promise<StreamBlock | undefined>
  /** Stops the statement (if it still runs) and frees what it holds. */
  close(): void
}

/** Where statements really run (server/engine.ts builds one per engine mode). */
export interface EngineLanes {
  /** Data statements the engine can really run at once. */
  readonly maxInFlight: number
  /** Runs one data statement, read-only; when `signal` aborts, the engine stops it before this settles. */
  data(statement: Statement): Promise<StatementOutput>
  /**
   * Runs a statement whose cost is bounded by construction (a fixed few minutes of events) beside the
   * data statements, so it never waits behind a heavy one; stopped when `signal` aborts.
   */
  bounded(statement: Statement): Promise<StatementOutput>
  /** Heavy statements the lanes run at once, beside the data statements. */
  readonly heavyInFlight: number
  /**
   * Runs a heavy statement, its values written as typed literals (it binds nothing), beside the data
   * statements at HEAVY_PRIORITY, so that it pauses while they run; stopped when `signal` aborts.
   */
  heavy(statement: Statement): Promise<StatementOutput>
  /** Runs a statement without parameters beside the data statements, never queued behind them. */
  control(sql: string, signal: AbortSignal): Promise<string>
  /**
   * Opens a data statement to be read a block at a time, for one whose output is too large for one answer
   * (a whole export); undefined when as many streams are open as the lanes may hold (each keeps its
   * readers' buffers between reads). The statement itself has no time or row limit; each read is a data
   * turn of its own. Lanes without it (a server) take such output in keyset chunks, a statement each.
   */
  openStream?(statement: Statement): StatementStream | undefined
  /** Statements the lanes gave up stopping (see UnstoppableStatement) that are still running. */
  unstoppable?(): number
}

/** A cancelled statement the lanes gave up stopping: `tries` KILLs did not end it. */
export interface UnstoppableStatement {
  id: string
  tries: number
  /** The last KILL's own failure, if it failed rather than found nothing to stop. */
  lastKillError?: string
}

export interface StatementEvent {
  template: string
  clientId?: string
  /** The lane whose turn the statement waited for. */
  lane: Lane
  durationMs: number
  queueWaitMs: number
  readRows?: number
  readBytes?: number
  outcome: 'ok' | 'error' | 'cancelled' | 'timeout'
}

/**
 * A statement given up (its deadline passed, its request went away) that had a turn: how long the engine
 * went on with it, holding the turn, before it stopped.
 */
export interface StoppedStatement {
  template: string
  clientId?: string
  lane: Lane
  /** From its turn to the engine's stop. */
  ranMs: number
  /** From when it was given up to the engine's stop. */
  overrunMs: number
}

export interface RunObserver {
  statementFinished(event: StatementEvent): void
  /** A statement given up while it ran has stopped in the engine, and its turn has ended. */
  statementStopped?(statement: StoppedStatement): void
  /** A cancelled statement the lanes could not stop (embedded: the kill loop gave up on it). */
  statementUnstoppable?(statement: UnstoppableStatement): void
}

export interface RunnerOptions {
  lanes: EngineLanes
  guardrails: Guardrails
  /** Data statements that may wait for a turn, over all clients (503 past it). */
  maxQueued: number
  observer?: RunObserver
  /** The data version, where the engine knows it without a statement (embedded; see run/data-version.ts). */
  dataVersion?: () => string | undefined
  /** Milliseconds on a monotonic clock (`performance.now()` by default), by which a stuck data lane is told. */
  clock?: () => number
}

export interface RunOptions {
  /** Aborts when the request goes away: the statement leaves the queue, or is stopped in the engine. */
  signal?: AbortSignal
  /** Whose turn this is: the queue is served by client, the one that used the least engine time first. */
  clientId?: string
  /** `bounded` only for statements whose cost is bounded by construction; `data` by default. */
  lane?: Lane
  /**
   * The request's deadline (Runner.requestDeadline), shared by every statement it runs one after another,
   * so that they take one time limit together, queueing included; each statement's own limit otherwise.
   */
  deadline?: AbortSignal
  /** The request's turn across its statements: its statement takes the slot the one before kept (scheduler.ts). */
  kept?: KeptTurn
  /** How many requests the statement answers (a joined statement's members, which may join while it waits); one by default. */
  requests?: () => number
}

export interface RunResult<T> {
  rows: T[]
  durationMs: number
  /** Rows and bytes read, when the engine reports them (a server does, in X-ClickHouse-Summary). */
  readRows?: number
  readBytes?: number
}

const ANONYMOUS = 'anonymous'
/** `/ready` says no rather than keep a load balancer waiting. */
const PING_DEADLINE_MS = 2_000
/** How much longer than the time limit the data lane may run statements without one ending before it counts as stuck. */
export const STUCK_GRACE_MS = 5_000

/** Settles with `work`, or rejects as soon as `signal` aborts (the engine is being stopped meanwhile). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** A deadline is a timeout, a request gone away a cancellation; anything else as the engine said it. */
function failureOf(error: unknown, signal: AbortSignal, deadline: AbortSignal): unknown {
  if (deadline.aborted) return new QueryError('timeout', 'The query took longer than the time limit')
  if (signal.aborted) return new QueryError('cancelled', 'The request was cancelled')
  return toQueryError(error)
}

function outcomeOf(failure: unknown): StatementEvent['outcome'] {
  if (failure instanceof QueryError && (failure.code === 'timeout' || failure.code === 'cancelled')) return failure.code
  return 'error'
}

/**
 * A statement compiled when its turn comes rather than when it is queued: what it answers may grow while
 * it waits (joined-runs.ts). `template` names it until then.
 */
export interface CompiledAtTurn {
  template: string
  compileAtTurn(): CompiledQuery
}

/** A compiled query as the lanes take it, under a new id. */
const statementOf = (query: CompiledQuery, signal: AbortSignal): Statement => ({
  sql: query.sql,
  params: query.params,
  id: crypto.randomUUID(),
  signal,
  format: query.format ?? 'JSONEachRow',
  settings: query.settings ?? {},
})

const compiledNow = (query: CompiledQuery | CompiledAtTurn): CompiledQuery => ('compileAtTurn' in query ? query.compileAtTurn() : query)

/** What a request's code runs statements through: the runner, or the runner on one client's behalf. */
export type StatementRunner = Pick<Runner, 'run' | 'runText' | 'stream'>

export class Runner {
  private readonly lanes: EngineLanes
  /** One queue per lane, each served by client by engine time used (scheduler.ts). */
  private readonly schedulers: Record<Lane, FairScheduler>
  private readonly deadlineMs: number
  private readonly observer?: RunObserver
  /** The data version without a statement, where the engine knows it (embedded). */
  readonly dataVersion?: () => string | undefined
  /**
   * A statement's output a block at a time (see readBlocks), or undefined when the lanes hold as many open
   * streams as they may; absent when the lanes cannot read a statement so.
   */
  readonly stream?: (query: CompiledQuery, options?: RunOptions) => AsyncIterableIterator<StreamBlock> | undefined

  constructor(options: RunnerOptions) {
    this.lanes = options.lanes
    this.observer = options.observer
    this.dataVersion = options.dataVersion
    this.deadlineMs = options.guardrails.maxExecutionSeconds * 1000
    const queue = { maxInFlight: options.lanes.maxInFlight, maxQueued: options.maxQueued, clock: options.clock }
    this.schedulers = {
      data: new FairScheduler(queue),
      bounded: new FairScheduler(queue),
      heavy: new FairScheduler({ ...queue, maxInFlight: options.lanes.heavyInFlight }),
    }
    const open = options.lanes.openStream?.bind(options.lanes)
    if (open) {
      this.stream = (query, runOptions = {}) => {
        const signal = runOptions.signal ?? new AbortController().signal
        const stream = open(statementOf(query, signal))
        return stream && this.readBlocks(stream, query.template, runOptions)
      }
    }
  }

  /** A deadline one time limit from now, for the statements of one request to share (RunOptions.deadline). */
  requestDeadline(): AbortSignal {
    return AbortSignal.timeout(this.deadlineMs)
  }

  /** Data and heavy statements waiting for a turn. */
  queueDepth(): number {
    return this.schedulers.data.queueDepth() + this.schedulers.heavy.queueDepth()
  }

  /** Data and heavy statements running. */
  inFlight(): number {
    return this.schedulers.data.inFlight() + this.schedulers.heavy.inFlight()
  }

  /**
   * Why the data lane cannot be counted on to answer, or undefined while it can: a cancelled statement the
   * lanes gave up stopping still runs, or statements of the data or the heavy lane have run for longer than
   * the time limit and STUCK_GRACE_MS without any of them ending (each is stopped at the time limit, so none
   * should).
   */
  dataLaneTrouble(): string | undefined {
    const unstoppable = this.lanes.unstoppable?.() ?? 0
    if (unstoppable) return `${unstoppable} cancelled statement(s) could not be stopped and still run`
    const stalledMs = this.schedulers.data.stalledForMs()
    if (stalledMs > this.deadlineMs + STUCK_GRACE_MS)
      return `no statement has ended for ${Math.round(stalledMs / 1000)} s while statements run`
    const heavyStalledMs = this.schedulers.heavy.stalledForMs()
    if (heavyStalledMs > this.deadlineMs + STUCK_GRACE_MS)
      return `no heavy statement has ended for ${Math.round(heavyStalledMs / 1000)} s while heavy statements run`
    return undefined
  }

  /** This runner with every statement queued as `clientId`'s turn. */
  forClient(clientId: string): StatementRunner {
    const stream = this.stream
    return {
      run: (query, options = {}) => this.run(query, { ...options, clientId }),
      runText: (query, options = {}) => this.runText(query, { ...options, clientId }),
      stream: stream && ((query, options = {}) => stream(query, { ...options, clientId })),
    }
  }

  async run<T>(query: CompiledQuery | CompiledAtTurn, options: RunOptions = {}): Promise<RunResult<T>> {
    const { text, ...run } = await this.runText(query, options)
    return { rows: parseLines<T>(text), ...run }
  }

  /** The result as the engine wrote it (the query's format), for streaming it on without re-encoding. */
  async runText(
    query: CompiledQuery | CompiledAtTurn,
    options: RunOptions = {},
  ): Promise<Omit<RunResult<unknown>, 'rows'> & { text: string }> {
    let template = query.template
    const lane = options.lane ?? 'data'
    const { output, durationMs } = await this.inTurn(
      options,
      () => template,
      (signal) => {
        const statement = compiledNow(query)
        template = statement.template
        // A heavy statement binds nothing, so that it runs beside the bound ones (embedded, those share one chain).
        return this.lanes[lane](statementOf(lane === 'heavy' ? inlineParams(statement) : statement, signal))
      },
    )
    return { text: output.text, durationMs, readRows: output.readRows, readBytes: output.readBytes }
  }

  /**
   * A statement's output a block at a time, from a stream the lanes opened. Each block is read in a turn of
   * the heavy lane under its own deadline, so a whole export takes turns with the other heavy statements as
   * keyset chunks would, and leaves the data lane to light questions (a stream binds its parameters outside
   * the chain of bound statements, so it runs beside them). The end, a failed read or `return()` (even before the first read)
   * closes the stream.
   */
  private readBlocks(stream: StatementStream, template: string, options: RunOptions): AsyncIterableIterator<StreamBlock> {
    const close = async (): Promise<IteratorResult<StreamBlock>> => {
      stream.close()
      return { done: true, value: undefined }
    }
    const blocks: AsyncIterableIterator<StreamBlock> = {
      next: async () => {
        try {
          const { output } = await this.inTurn(
            { ...options, lane: 'heavy' },
            () => template,
            (signal) => stream.next(signal),
          )
          if (output) return { done: false, value: output }
        } catch (error) {
          stream.close()
          throw error
        }
        return close()
      },
      return: close,
      [Symbol.asyncIterator]: () => blocks,
    }
    return blocks
  }

  /**
   * Runs `work` in a turn of the options' lane: waits for the turn, bounds the work by the deadline and
   * the request's signal, reports it to the observer, and ends the turn once the engine has stopped.
   * `work` may throw before it starts (a statement compiled at its turn); the turn is released.
   */
  private async inTurn<T extends ReadStats | undefined>(
    options: RunOptions,
    template: () => string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<{ output: T; durationMs: number }> {
    const started = performance.now()
    const deadline = options.deadline ?? AbortSignal.timeout(this.deadlineMs)
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline
    // Unset while the statement waits: one that leaves the queue without a turn (its deadline, its request
    // gone) ran for no time, and its wait is all queue.
    let admitted: number | undefined
    const finish = (outcome: StatementEvent['outcome'], output: ReadStats = {}) => {
      const ended = performance.now()
      this.observer?.statementFinished({
        template: template(),
        clientId: options.clientId,
        lane: options.lane ?? 'data',
        durationMs: admitted === undefined ? 0 : ended - admitted,
        queueWaitMs: (admitted ?? ended) - started,
        readRows: output.readRows,
        readBytes: output.readBytes,
        outcome,
      })
    }
    try {
      const release = await this.schedulers[options.lane ?? 'data'].admit(
        options.clientId ?? ANONYMOUS,
        signal,
        options.kept,
        options.requests,
      )
      const turnAt = performance.now()
      admitted = turnAt
      let running: Promise<T>
      try {
        running = work(signal)
      } catch (error) {
        release()
        throw error
      }
      // The turn ends when the engine has stopped, not when the caller stops waiting.
      const stopped = running.then(release, release).then(() => performance.now())
      try {
        const output = await untilAborted(running, signal)
        finish('ok', output)
        return { output, durationMs: performance.now() - turnAt }
      } catch (error) {
        const givenUpAt = performance.now()
        if (signal.aborted) {
          void stopped.then((stoppedAt) =>
            this.observer?.statementStopped?.({
              template: template(),
              clientId: options.clientId,
              lane: options.lane ?? 'data',
              ranMs: stoppedAt - turnAt,
              overrunMs: stoppedAt - givenUpAt,
            }),
          )
        }
        throw error
      }
    } catch (error) {
      const failure = failureOf(error, signal, deadline)
      finish(outcomeOf(failure))
      throw failure
    }
  }

  /** Rows of a statement without parameters (the projects and clients look-ups), run on the control lane. */
  async control<T>(query: CompiledQuery, deadlineMs = this.deadlineMs): Promise<T[]> {
    if (Object.keys(query.params).length) throw new Error(`Control statement ${query.template} must not take parameters`)
    const signal = AbortSignal.timeout(deadlineMs)
    try {
      return parseLines<T>(await untilAborted(this.lanes.control(query.sql, signal), signal))
    } catch (error) {
      throw failureOf(error, signal, signal)
    }
  }

  /** Whether the engine answers, asked on the control lane so it never waits behind data statements. */
  async ping(): Promise<boolean> {
    try {
      await this.control({ template: 'control.ping', sql: 'SELECT 1 AS ok', params: {} }, PING_DEADLINE_MS)
      return true
    } catch {
      return false
    }
  }
}
