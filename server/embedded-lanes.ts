// The embedded engine's serving lanes: three read-only chDB sessions on the data directory, one for data
// statements (stopped by KILL QUERY), one for bounded-cost statements and one for control statements
// without parameters, both of which run beside the data statements.
import type { Session } from 'chdb'
import { guardrailSettings, type EngineLanes, type Guardrails, type Statement, type StatementOutput } from '../queries/core/run'

const STATEMENT_ID = /^[0-9a-f-]{36}$/
const KILL_RETRY_MS = 50

function setClause(settings: Record<string, string | number>): string {
  return Object.entries(settings)
    .map(([name, value]) => `${name} = ${typeof value === 'number' ? value : `'${value}'`}`)
    .join(', ')
}

export interface EmbeddedLanesOptions {
  /** chDB's Session class, loaded lazily by server/engine.ts. */
  Session: typeof Session
  dataDir: string
  guardrails: Guardrails
}

/** Readies a serving session: the guardrails and then `readonly = 2`, which can never be lifted on it. */
async function lockDown(session: Session, settings: Record<string, string | number>): Promise<void> {
  if (Object.keys(settings).length) await session.queryAsync(`SET ${setClause(settings)}`)
  await session.queryAsync('SET readonly = 2')
}

export class EmbeddedLanes implements EngineLanes {
  /**
   * TRICKY: chDB serializes every bound-parameter statement of the process through one chain (parallel
   * ones clobber each other inside libchdb), so one data statement at a time is what it can really run.
   */
  readonly maxInFlight = 1
  private readonly serving: Session
  private readonly boundedSession: Session
  private readonly controlSession: Session
  private readonly ready: Promise<void>

  constructor(options: EmbeddedLanesOptions) {
    const serving = new options.Session(options.dataDir)
    const bounded = new options.Session(options.dataDir)
    const control = new options.Session(options.dataDir)
    this.serving = serving
    this.boundedSession = bounded
    this.controlSession = control
    // TRICKY: a SET lasts for the session's connection (other sessions on the directory keep their own),
    // so nothing sent through these three can write, whatever a statement stacks or sets.
    const guardrails = guardrailSettings(options.guardrails)
    this.ready = Promise.all([lockDown(serving, guardrails), lockDown(bounded, guardrails), lockDown(control, {})]).then(() => undefined)
    // Failures surface on the first statement; this only keeps them from being unhandled meanwhile.
    this.ready.catch(() => undefined)
  }

  async data(statement: Statement): Promise<StatementOutput> {
    await this.ready
    if (!STATEMENT_ID.test(statement.id)) throw new Error(`Bad statement id ${statement.id}`)
    statement.signal.throwIfAborted()
    // TRICKY: chDB names its own query ids, so the statement carries ours as `log_comment`, by which a
    // KILL finds it. The single-shot call runs off the JavaScript thread; chDB's streaming call would do
    // most of an aggregation's work synchronously on it, so a heavy statement would freeze every other
    // request (and the deadline timers) until it ended. The call itself cannot be interrupted, so on
    // abort KILL QUERY from the other session stops it; it is repeated until the statement has ended, in
    // case it landed before the statement was registered.
    const work = this.serving.queryBindAsync(`${statement.sql}\nSETTINGS log_comment = '${statement.id}'`, statement.params, { format: statement.format })
    let ended = false
    const stop = async () => {
      while (!ended) {
        await this.kill(statement.id).catch(() => undefined)
        await new Promise((resolve) => setTimeout(resolve, KILL_RETRY_MS))
      }
    }
    const onAbort = () => void stop()
    statement.signal.addEventListener('abort', onAbort, { once: true })
    try {
      const result = await work.finally(() => {
        ended = true
        statement.signal.removeEventListener('abort', onAbort)
      })
      return { text: result.text(), readRows: result.rowsRead, readBytes: result.bytesRead }
    } catch (error) {
      // TRICKY: libchdb can keep the partial output of a statement that failed mid-result and prepend it
      // to the session's next answer; a throwaway statement takes it before the next turn begins.
      await this.serving.queryAsync("SELECT 'flush' AS leftover", { format: 'JSONEachRow' }).catch(() => undefined)
      throw error
    }
  }

  /**
   * TRICKY: chDB's streaming call binds parameters per stream, outside the process-wide chain of the
   * single-shot bound calls, so on its own session it runs beside a data statement (checked: thousands
   * of bound streams beside a bound 3-second statement, every answer and param intact). It does a
   * statement's work on the JavaScript thread, which is why only bounded-cost statements come here.
   */
  async bounded(statement: Statement): Promise<StatementOutput> {
    await this.ready
    statement.signal.throwIfAborted()
    const stream = this.boundedSession.queryStreamBind(statement.sql, statement.params, { format: statement.format, signal: statement.signal })
    let text = ''
    for await (const chunk of stream) text += chunk.text()
    return { text }
  }

  async control(sql: string, signal: AbortSignal): Promise<string> {
    await this.ready
    return (await this.controlSession.queryAsync(sql, { format: 'JSONEachRow', signal })).text()
  }

  /** TRICKY: `KILL QUERY ... SYNC` never settles in chDB; `ASYNC` marks the statement and returns. */
  private async kill(id: string): Promise<void> {
    await this.controlSession.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = '${id}' ASYNC`, { format: 'JSONEachRow' })
  }

  close(): void {
    this.serving.close()
    this.boundedSession.close()
    this.controlSession.close()
  }
}
