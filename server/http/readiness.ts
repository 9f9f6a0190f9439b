// `/ready`'s answer: whether the engine answers, from one probe shared by every caller and at most
// MAX_PROBE_AGE_MS old (so that unauthenticated callers cannot load the control lane, which also carries
// KILLs and the client look-ups), and whether the data lane is making progress, checked on every call.
import type { Runner } from '../../queries/run/runner'

/** A probe's result is reused for this long after it started. */
export const MAX_PROBE_AGE_MS = 1_000

export type Readiness = { ready: true } | { ready: false; reason: string }

export class ReadinessProbe {
  private latest?: { startedAt: number; answers: Promise<boolean> }

  /** @param clock milliseconds on a monotonic clock (`performance.now()` by default) */
  constructor(
    private readonly runner: Pick<Runner, 'ping' | 'dataLaneTrouble'>,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  async check(): Promise<Readiness> {
    const trouble = this.runner.dataLaneTrouble()
    if (trouble) return { ready: false, reason: `The engine's data lane is stuck: ${trouble}` }
    return (await this.answers()) ? { ready: true } : { ready: false, reason: 'ClickHouse is not reachable' }
  }

  /** Whether the engine answers: the probe started within MAX_PROBE_AGE_MS (done or under way), or a new one. */
  private answers(): Promise<boolean> {
    const now = this.clock()
    if (this.latest && now - this.latest.startedAt < MAX_PROBE_AGE_MS) return this.latest.answers
    const answers = this.runner.ping()
    this.latest = { startedAt: now, answers }
    return answers
  }
}
