// The embedded engine's serving lanes: four read-only chDB sessions on the data directory, one for data
// statements (stopped by KILL QUERY), one for bounded-cost statements, one for heavy statements (their values
// as typed literals, stopped by KILL QUERY) and one for control statements without parameters, the last three
// of which run beside the data statements; and a session per streamed statement.
import type { Session } from 'chdb'
import { HEAVY_PRIORITY, QUESTION_PRIORITY } from './priorities'
import {
  guardrailSettings,
  type EngineLanes,
  type Guardrails,
  type Statement,
  type StatementOutput,
  type StatementStream,
  type StreamBlock,
  type UnstoppableStatement,
} from '../queries/run/runner'

const STATEMENT_ID = /^[0-9a-f-]{36}$/
const KILL_RETRY_MS = 50
/**
 * KILLs sent for one cancelled statement before the lanes give up on it (about 5 s of tries): a statement
 * that outlasts them is reported (EmbeddedLanesOptions.onUnstoppable) and counted until it ends.
 */
const MAX_KILL_TRIES = 100
/**
 * Streams open at once; past it, exports run in keyset chunks, which hold nothing between statements. An
 * open export stream keeps its readers and a block in memory between reads, so this bounds their memory
 * (docs/measurements.md, "Export").
 */
const MAX_OPEN_STREAMS = 4

/** A setting's value in a SET that gives it back its default. */
const DEFAULT = Symbol('DEFAULT')
const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

function setClause(settings: Readonly<Record<string, string | number | typeof DEFAULT>>): string {
  return Object.entries(settings)
    .map(([name, value]) => {
      if (!SETTING_NAME.test(name)) throw new Error(`Bad setting name ${name}`)
      if (value === DEFAULT) return `${name} = DEFAULT`
      return `${name} = ${typeof value === 'number' ? value : `'${String(value).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`}`
    })
    .join(', ')
}

export interface EmbeddedLanesOptions {
  /** chDB's Session class, loaded lazily by server/engine.ts. */
  Session: typeof Session
  dataDir: string
  guardrails: Guardrails
  /** KILLs sent for a cancelled statement before giving up on it (MAX_KILL_TRIES by default). */
  maxKillTries?: number
  /** Told of each statement the lanes gave up stopping. */
  onUnstoppable?: (statement: UnstoppableStatement) => void
}

/** Readies a serving session: the guardrails and then `readonly = 2`, which can never be lifted on it. */
async function lockDown(session: Session, settings: Record<string, string | number>): Promise<void> {
  if (Object.keys(settings).length) await session.queryAsync(`SET ${setClause(settings)}`)
  await session.queryAsync('SET readonly = 2')
}

/**
 * TRICKY: chDB names its own query ids, so a statement carries ours as `log_comment`, by which a KILL
 * finds it (untilStopped): neither the single-shot call nor a read under way can be interrupted otherwise.
 */
function taggedSql(statement: Statement): string {
  if (!STATEMENT_ID.test(statement.id)) throw new Error(`Bad statement id ${statement.id}`)
  return `${statement.sql}\nSETTINGS log_comment = '${statement.id}'`
}

export class EmbeddedLanes implements EngineLanes {
  /**
   * TRICKY: chDB serializes every bound-parameter statement of the process through one chain (parallel
   * ones clobber each other inside libchdb), so one data statement at a time is what it can really run.
   */
  readonly maxInFlight = 1
  /** Heavy statements run one at a time on their session, beside the data statement. */
  readonly heavyInFlight = 1
  private readonly serving: Session
  private readonly heavySession: Session
  private readonly boundedSession: Session
  private readonly controlSession: Session
  private readonly ready: Promise<void>
  private readonly options: EmbeddedLanesOptions
  /** A stream session's settings (see openStream). */
  private readonly streamSettings: Record<string, string | number>
  /** The sessions of the streams open now (at most MAX_OPEN_STREAMS), closed with the lanes. */
  private readonly streamSessions = new Set<Session>()
  /** What the data and bounded sessions are set to, to which a statement's own settings return. */
  private readonly questionSettings: Record<string, string | number>
  /** What the heavy session is set to: the questions' settings at HEAVY_PRIORITY. */
  private readonly heavySettings: Record<string, string | number>
  /** Ids of the statements the kill loop gave up on that have not ended yet. */
  private readonly givenUp = new Set<string>()

  constructor(options: EmbeddedLanesOptions) {
    this.options = options
    const serving = new options.Session(options.dataDir)
    const heavy = new options.Session(options.dataDir)
    const bounded = new options.Session(options.dataDir)
    const control = new options.Session(options.dataDir)
    this.serving = serving
    this.heavySession = heavy
    this.boundedSession = bounded
    this.controlSession = control
    // TRICKY: a SET lasts for the session's connection (other sessions on the directory keep their own),
    // so nothing sent through these three can write, whatever a statement stacks or sets.
    const guardrails = guardrailSettings(options.guardrails)
    this.streamSettings = {
      ...guardrails,
      max_execution_time: 0,
      max_result_rows: 0,
      read_in_order_use_buffering: 0,
      max_threads: 1,
      max_block_size: 8192,
      max_read_buffer_size: 131_072,
    }
    const questions = { ...guardrails, priority: QUESTION_PRIORITY }
    this.questionSettings = questions
    this.heavySettings = { ...guardrails, priority: HEAVY_PRIORITY }
    this.ready = Promise.all([
      lockDown(serving, questions),
      lockDown(heavy, this.heavySettings),
      lockDown(bounded, questions),
      lockDown(control, {}),
    ]).then(() => undefined)
    // Failures surface on the first statement; this only keeps them from being unhandled meanwhile.
    this.ready.catch(() => undefined)
  }

  async data(statement: Statement): Promise<StatementOutput> {
    await this.ready
    return this.withOwnSettings(this.serving, statement, this.questionSettings, () =>
      this.runOn(this.serving, statement, () =>
        this.serving.queryBindAsync(taggedSql(statement), statement.params, { format: statement.format }),
      ),
    )
  }

  /**
   * TRICKY: a statement without parameters does not join chDB's process-wide chain of bound statements, so on
   * its own session a heavy statement runs beside the data statement; at HEAVY_PRIORITY it pauses at each
   * block while a question runs. Its values are typed literals (queries/core/literals.ts), never request text.
   */
  async heavy(statement: Statement): Promise<StatementOutput> {
    if (Object.keys(statement.params).length) throw new Error('A heavy statement carries its values as typed literals and binds nothing')
    await this.ready
    return this.withOwnSettings(this.heavySession, statement, this.heavySettings, () =>
      this.runOn(this.heavySession, statement, () => this.heavySession.queryAsync(taggedSql(statement), { format: statement.format })),
    )
  }

  /** Runs a statement `start`s on `session`, stopped by KILL QUERY when its signal aborts. */
  private async runOn(session: Session, statement: Statement, start: () => ReturnType<Session['queryAsync']>): Promise<StatementOutput> {
    statement.signal.throwIfAborted()
    try {
      const result = await this.untilStopped(statement.id, start(), statement.signal)
      return { text: result.text(), readRows: result.rowsRead, readBytes: result.bytesRead }
    } catch (error) {
      // TRICKY: libchdb can keep the partial output of a statement that failed mid-result and prepend it
      // to the session's next answer; a throwaway statement takes it before the next turn begins.
      await session.queryAsync("SELECT 'flush' AS leftover", { format: 'JSONEachRow' }).catch(() => undefined)
      throw error
    }
  }

  /**
   * Runs `work` (which checks the statement's signal before it starts, so an abort is never missed) with
   * the statement's own settings set on `session`, then sets them back to the session's (`base`, or the
   * defaults). TRICKY: a SET lasts for the session, so without the way back a statement's settings
   * would apply to every statement after it on that session. All of it runs within the statement's turn,
   * so no other statement runs on the session meanwhile. A statement without settings starts at once.
   */
  private async withOwnSettings<T>(
    session: Session,
    statement: Statement,
    base: Record<string, string | number>,
    work: () => Promise<T>,
  ): Promise<T> {
    const own = statement.settings ?? {}
    const names = Object.keys(own)
    if (!names.length) return work()
    await session.queryAsync(`SET ${setClause(own)}`)
    try {
      return await work()
    } finally {
      const back = Object.fromEntries(names.map((name) => [name, base[name] ?? DEFAULT]))
      await session.queryAsync(`SET ${setClause(back)}`)
    }
  }

  /**
   * TRICKY: chDB's streaming call binds parameters per stream, outside the process-wide chain of the
   * single-shot bound calls, so on its own session it runs beside a data statement (checked: thousands
   * of bound streams beside a bound 3-second statement, every answer and param intact).
   */
  async bounded(statement: Statement): Promise<StatementOutput> {
    await this.ready
    return this.withOwnSettings(this.boundedSession, statement, this.questionSettings, async () => {
      statement.signal.throwIfAborted()
      const stream = this.boundedSession.queryStreamBind(statement.sql, statement.params, {
        format: statement.format,
        signal: statement.signal,
      })
      let text = ''
      for await (const chunk of stream) text += chunk.text()
      return { text }
    })
  }

  /**
   * A streamed statement on a read-only session of its own (chDB streams one statement per session), its
   * parameters bound per stream, outside the process-wide chain. Each read runs off the JavaScript thread
   * and stops after about a block, so a paused export uses next to no CPU until its next read.
   * TRICKY: the session has no time or result-row limit (a whole export outlives both); each read is
   * bounded by its own signal, on which KILL QUERY stops it, as it stops a data statement.
   * The reading settings were chosen by measurement (docs/measurements.md, "Export"): without a read-ahead
   * buffer per part, in key order (`read_in_order_use_buffering = 0`), CSV ran faster with less memory; one
   * thread, 8,192-row blocks and 128 KiB read buffers then about halved an open stream's memory at nearly
   * the same rows per second.
   */
  openStream(statement: Statement): StatementStream | undefined {
    if (this.streamSessions.size >= MAX_OPEN_STREAMS) return undefined
    const sql = taggedSql(statement)
    const session = new this.options.Session(this.options.dataDir)
    this.streamSessions.add(session)
    // The session is the statement's own, so its settings simply join the stream's.
    const blocks = lockDown(session, { ...this.streamSettings, ...statement.settings }).then(() =>
      session.queryStreamBind(sql, statement.params, { format: statement.format })[Symbol.asyncIterator](),
    )
    blocks.catch(() => undefined)
    let closed = false
    return {
      next: async (signal) => {
        signal.throwIfAborted()
        const read = blocks.then((iterator) => iterator.next())
        const block = await this.untilStopped(statement.id, read, signal)
        return block.done ? undefined : ({ bytes: block.value.raw(), rows: block.value.numRows } satisfies StreamBlock)
      },
      close: () => {
        if (closed) return
        closed = true
        this.streamSessions.delete(session)
        void blocks
          .then((iterator) => iterator.return?.())
          .catch(() => undefined)
          .finally(() => session.close())
      },
    }
  }

  async control(sql: string, signal: AbortSignal): Promise<string> {
    await this.ready
    return (await this.controlSession.queryAsync(sql, { format: 'JSONEachRow', signal })).text()
  }

  /** Statements the lanes gave up stopping that are still running. */
  unstoppable(): number {
    return this.givenUp.size
  }

  /**
   * Settles with `work`, a statement tagged `id`; when `signal` aborts first, KILL QUERY stops the
   * statement, repeated until it has ended (in case it landed before the statement was registered), at
   * most `maxKillTries` times: then the statement is reported and counted as unstoppable until it ends.
   * TRICKY: a statement waiting in chDB's process-wide chain of bound statements is not registered yet,
   * so no KILL finds it until the statements ahead of it end.
   */
  private async untilStopped<T>(id: string, work: Promise<T>, signal: AbortSignal): Promise<T> {
    let ended = false
    const maxTries = this.options.maxKillTries ?? MAX_KILL_TRIES
    const stop = async () => {
      let tries = 0
      let lastError: unknown
      while (!ended && tries < maxTries) {
        tries += 1
        await this.kill(id).then(
          () => (lastError = undefined),
          (error: unknown) => (lastError = error),
        )
        await new Promise((resolve) => setTimeout(resolve, KILL_RETRY_MS))
      }
      if (ended) return
      this.givenUp.add(id)
      this.options.onUnstoppable?.({ id, tries, lastKillError: lastError === undefined ? undefined : String(lastError) })
    }
    const onAbort = () => void stop()
    signal.addEventListener('abort', onAbort, { once: true })
    return work.finally(() => {
      ended = true
      this.givenUp.delete(id)
      signal.removeEventListener('abort', onAbort)
    })
  }

  /** TRICKY: `KILL QUERY ... SYNC` never settles in chDB; `ASYNC` marks the statement and returns. */
  private async kill(id: string): Promise<void> {
    await this.controlSession.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = '${id}' ASYNC`, { format: 'JSONEachRow' })
  }

  close(): void {
    this.serving.close()
    this.heavySession.close()
    this.boundedSession.close()
    this.controlSession.close()
    // chDB's close waits for a read under way before it lets the stream's connection go.
    for (const session of this.streamSessions) session.close()
    this.streamSessions.clear()
  }
}
