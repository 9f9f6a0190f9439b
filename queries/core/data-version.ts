// The data version: embedded, the count of writes the engine's one writable connection has begun and
// ended (server/engine.ts, countWrites), known without a statement; on a server, `count()` of `events`
// (control/data-version.sql), read on the control lane. Events are only appended, so any insert, late
// events for settled days included, changes either.
import { compileTemplate } from './compiled'
import type { Runner } from './run'

/** The data version now, as text. A statement without parameters: it runs on the control lane, never behind data statements. */
async function readDataVersion(runner: Pick<Runner, 'control'>): Promise<string> {
  const rows = await runner.control<{ events: number }>(compileTemplate('control/data-version.sql', {}))
  return String(rows[0]?.events)
}

/**
 * Readings of the data version shared by everyone who needs one taken since a given moment: the result
 * cache (since its poll interval) and the settled checks (since their question arrived) take one reading
 * where each took its own (2-5 ms on the control lane), and questions that arrive together share one.
 */
export class DataVersion {
  private latest?: { value: string; startedAt: number }
  private reading?: { promise: Promise<string>; startedAt: number }

  constructor(private readonly runner: Pick<Runner, 'control' | 'dataVersion'>) {}

  /**
   * The version as the engine knows it now, or as read by a reading that started at or after `since` (a
   * `performance.now()` time): the latest such reading, one under way, or a new one. A reading that fails drops every older one.
   */
  async since(since: number): Promise<string> {
    const known = this.runner.dataVersion?.()
    if (known !== undefined) return known
    if (this.latest && this.latest.startedAt >= since) return this.latest.value
    if (this.reading && this.reading.startedAt >= since) return this.reading.promise
    return this.read()
  }

  private read(): Promise<string> {
    const startedAt = performance.now()
    const promise = readDataVersion(this.runner).then(
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
