// The settled check of a session question (sessions/settled-days.sql) runs before its statement is
// compiled, and its rows are reused by the next questions of the same project, lookback and days while they
// still hold: a dashboard's questions share one check instead of each running its own inside its statement.
import { LRUCache } from 'lru-cache'
import type { CompiledQuery } from '../core/compiled'
import type { SettledRow } from '../core/pipeline'
import type { DataVersion } from './data-version'
import type { Runner } from './runner'
import type { KeptTurn } from './scheduler'
import { SharedRuns } from './shared-runs'

/** Checks kept at most, each a few hundred bytes (one entry per project, lookback and window days asked). */
const MAX_CHECKS = 1_000

export interface CheckOptions {
  /** Aborts when the request goes away; a check shared with other requests stops when all of them have. */
  signal: AbortSignal
  /** Whose turn the check takes in the data queue. */
  clientId?: string
  /** When the question arrived (`performance.now()`): the data version is read no earlier. */
  askedAt: number
  /**
   * The question's deadline, which its statement shares: the check and the statement take one time limit
   * together. A check shared by several questions runs under the deadline of the first one to ask.
   */
  deadline?: AbortSignal
  /** The question's turn across its statements: its statement takes the slot its own check kept. */
  kept?: KeptTurn
}

/**
 * A check's rows stay true while no event is added and the compactions they name stay stored:
 * - any write to a table answers read changes the data version (data-version.ts: embedded, known at
 *   once; on a server, read after the question arrived, on the control lane, shared with the result cache
 *   and with questions that arrived before it started), and part of the key;
 * - a replaced compaction is kept twice the longest statement limit any gateway accepts after its
 *   successor was recorded (admin/compact.ts, KEEP_SUPERSEDED_MS), and rows are reused only within this
 *   gateway's statement limit of their check's start (`maxAgeMs`): a statement started with them starts
 *   before what they name can go.
 * A compaction that settles a day, or records a newer number, moves the version too: until the rows are read
 * again, that day is regrouped from its partial rows or read from the compaction before, both exact.
 */
export class SettledChecks {
  private readonly entries = new LRUCache<string, SettledRow[]>({ max: MAX_CHECKS })
  private readonly running = new SharedRuns<SettledRow[]>()

  constructor(
    private readonly runner: Runner,
    private readonly versions: DataVersion,
    private readonly maxAgeMs: number,
  ) {}

  /** The rows of `check`: the settled days its question's statement is compiled with. */
  async rows(check: CompiledQuery, options: CheckOptions): Promise<SettledRow[]> {
    // Without a version reading nothing is reused: the check runs for this statement alone.
    const version = await this.versions.since(options.askedAt).catch(() => undefined)
    if (version === undefined) return this.run(check, options)
    const key = `${version}:${JSON.stringify(check.params)}`
    const reused = this.entries.get(key)
    if (reused) return reused
    return this.running.run(key, options.signal, async (signal) => {
      const started = Date.now()
      const rows = await this.run(check, { ...options, signal })
      const ttl = this.maxAgeMs - (Date.now() - started)
      if (ttl > 0) this.entries.set(key, rows, { ttl })
      return rows
    })
  }

  private async run(check: CompiledQuery, { signal, clientId, deadline, kept }: CheckOptions): Promise<SettledRow[]> {
    return (await this.runner.run<SettledRow>(check, { signal, clientId, deadline, kept })).rows
  }
}
