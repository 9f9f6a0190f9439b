// Requests that wait for a turn together, and that one statement can answer, share that statement: a
// batch stays open while it is queued, and is compiled at its turn from every member that joined it.
import type { CompiledQuery } from '../core/compiled'
import type { Joins, SettledRow } from '../core/pipeline'
import type { RunOptions, RunResult, Runner } from './runner'
import { joinShared, type Shared } from './shared-runs'

/** A request's part of a batch: its resource, planned query, settled check's rows and statement compiled with them. */
export interface Member<Planned> {
  resource: string
  query: Planned
  settled?: readonly SettledRow[]
  statement: CompiledQuery
}

type Row = Record<string, unknown>

/** A statement its members share: run at its turn, cancelled only when every member has gone away. */
interface Batch extends Shared<RunResult<Row>> {
  members: Member<unknown>[]
  /** Rows the members may read together (each one's `Joins.rows`). */
  rows: number
  /** Whether the statement is the joined one (rows name their member), fixed at its turn. */
  joined?: boolean
}

export class JoinedRuns {
  /** Batches still waiting for their turn, by family, client, lane, key and bound params. */
  private readonly waiting = new Map<string, Batch>()

  /** @param maxRows the statement's `max_result_rows`: a batch takes no member past it. */
  constructor(
    private readonly runner: Runner,
    private readonly maxRows: number,
  ) {}

  /**
   * `member`'s rows: from a batch of its family still waiting for a turn, or from one opened now and run
   * when its turn comes. The batch is cancelled only when every member has gone away (`signal`).
   */
  async run<Planned>(
    joins: Joins<Planned>,
    member: Member<Planned>,
    options: RunOptions & { signal: AbortSignal },
  ): Promise<RunResult<Row>> {
    const key = JSON.stringify([joins.family, options.clientId, options.lane, joins.key(member.query), member.statement.params])
    const rows = joins.rows(member.query)
    let batch = this.waiting.get(key)
    if (!batch || batch.abort.signal.aborted || batch.rows + rows > this.maxRows) batch = this.open(key, joins, options)
    // A member that joins a batch someone else opened runs no statement of its own: the slot it kept is freed.
    else options.kept?.letGo()
    let index = batch.members.findIndex((joined) => joined.resource === member.resource)
    if (index < 0) {
      index = batch.members.push(member as Member<unknown>) - 1
      batch.rows += rows
    }
    const result = await joinShared(batch, options.signal)
    if (!batch.joined) return result
    const own = result.rows.filter((row) => row.member === index).map(({ member: _, ...row }) => row)
    return { ...result, rows: own }
  }

  private open<Planned>(key: string, joins: Joins<Planned>, options: RunOptions): Batch {
    const close = () => {
      if (this.waiting.get(key) === batch) this.waiting.delete(key)
    }
    const compileAtTurn = () => {
      close()
      const members = batch.members as Member<Planned>[]
      batch.joined = members.length > 1
      if (!batch.joined) return members[0].statement
      // Members of one key bind equal params (the key holds them, settled days included), which the joined
      // statement, compiled with the same settled days, binds too.
      return joins.compile(members, members[0].settled)
    }
    const abort = new AbortController()
    const members: Member<unknown>[] = []
    // Its turn counts every request that has joined it by then (scheduler.ts: fewer requests go first); the
    // first member joins once the batch is open.
    const requests = () => Math.max(1, members.length)
    const promise = this.runner.run<Row>({ template: joins.family, compileAtTurn }, { ...options, signal: abort.signal, requests })
    const batch: Batch = { members, rows: 0, waiters: 0, abort, promise }
    this.waiting.set(key, batch)
    promise.then(close, close)
    return batch
  }
}
