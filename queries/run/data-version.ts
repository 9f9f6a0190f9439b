// The data version: what must change whenever an answer could change. Embedded, the count of writes the
// engine's one writable connection has begun and ended (server/engine.ts, countWrites), known without a
// statement, and none while a write runs; on a server, a fingerprint of the block numbers and mutation
// versions of every table answers are read from, over every replica on a cluster (merges leave it as it is),
// and none while a mutation of them is not done
// (control/data-version.sql), read on the control lane. Inserts, late events for settled days, a session's
// rebuilt rows, a compaction's attach and drop, deletes and a replica catching up all change it.
import { compileTemplate, sqlOnly, type CompiledQuery } from '../core/compiled'
import type { Runner } from './runner'

/** The server's statement: the parts and mutations of this node, or of every replica of `cluster`. */
export function compileDataVersion(cluster: string | undefined): CompiledQuery {
  const system = (table: string) => sqlOnly(cluster ? `clusterAllReplicas('${cluster}', system.${table})` : `system.${table}`)
  return compileTemplate('control/data-version.sql', {}, { parts: system('parts'), mutations: system('mutations') })
}

/** The data version read on the control lane; undefined while a mutation is under way. */
async function readDataVersion(runner: Pick<Runner, 'control'>, statement: CompiledQuery): Promise<string | undefined> {
  const [row] = await runner.control<{ parts: string; mutating: number | string }>(statement)
  return row && Number(row.mutating) === 0 ? row.parts : undefined
}

/**
 * Readings of the data version shared by everyone who needs one taken since a given moment: the result
 * cache (since its poll interval, and after a statement to store its rows) and the settled checks (since
 * their question arrived) take one reading where each took its own, and questions that arrive together share one.
 */
export class DataVersion {
  private latest?: { value: string | undefined; startedAt: number }
  private reading?: { promise: Promise<string | undefined>; startedAt: number }
  private readonly statement: CompiledQuery

  /** `cluster`: the cluster whose replicas' parts a server's version covers (CLICKHOUSE_CLUSTER). */
  constructor(
    private readonly runner: Pick<Runner, 'control' | 'dataVersion'>,
    cluster?: string,
  ) {
    this.statement = compileDataVersion(cluster)
  }

  /**
   * The version as the engine knows it now, or as read by a reading that started at or after `since` (a
   * `performance.now()` time): the latest such reading, one under way, or a new one. A reading that fails
   * drops every older one. Undefined while a write (embedded) or a mutation (server) is under way.
   */
  async since(since: number): Promise<string | undefined> {
    if (this.runner.dataVersion) return this.runner.dataVersion()
    if (this.latest && this.latest.startedAt >= since) return this.latest.value
    if (this.reading && this.reading.startedAt >= since) return this.reading.promise
    return this.read()
  }

  private read(): Promise<string | undefined> {
    const startedAt = performance.now()
    const promise = readDataVersion(this.runner, this.statement).then(
      (value) => {
        if (!this.latest || this.latest.startedAt < startedAt) this.latest = { value, startedAt }
        return value
      },
      (error: unknown) => {
        if (this.latest && this.latest.startedAt < startedAt) this.latest = undefined
        throw error
      },
    )
    this.reading = { promise, startedAt }
    promise
      .finally(() => {
        if (this.reading?.promise === promise) this.reading = undefined
      })
      .catch(() => undefined)
    return promise
  }
}
