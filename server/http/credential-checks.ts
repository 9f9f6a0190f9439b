// Admission for the scrypt checks the verified-secrets cache cannot answer: a global budget of checks per
// second, a few at once, and two tiers, so a flood of guesses never stands in front of a real client's check.
import { QueryError } from '../../queries/core/errors'

/**
 * `known`: a live client id whose (address, id) pair is under its failure limit. `suspect`: an unknown or
 * revoked id (checked against the dummy hash), or a pair past its failure limit. Known checks always go first.
 */
export type CheckTier = 'known' | 'suspect'

export interface CredentialCheckOptions {
  /** Checks started per second over the whole process (also the burst a quiet second allows). */
  perSecond: number
  /** Checks running at once (each takes one of libuv's 4 threads for tens of ms). */
  inFlight: number
  /**
   * Checks waiting, over both tiers. When full, an arrival pushes out the newest check of the caller
   * holding the most: a suspect one for a known arrival, else one of its own tier from a caller with more.
   */
  queued: number
  /** Suspect checks one caller (address) may have running or waiting. */
  suspectPerCaller: number
  now?: () => number
}

interface Waiter {
  start: () => void
  refuse: (error: QueryError) => void
}

const TIERS: readonly CheckTier[] = ['known', 'suspect']

/** About two thirds of one core's time at tens of ms per check: a flood of guesses leaves the rest to queries. */
export const DEFAULT_CHECKS_PER_SECOND = 10

export class CredentialChecks {
  private readonly now: () => number
  private running = 0
  private tokens: number
  private refilledAt: number
  private wakeUp?: NodeJS.Timeout
  /** Waiting checks per tier and caller, callers in round-robin order (the one served last goes to the back). */
  private readonly waiting: Record<CheckTier, Map<string, Waiter[]>> = { known: new Map(), suspect: new Map() }
  private queued = 0
  /** Suspect checks running or waiting, per caller. */
  private readonly suspects = new Map<string, number>()

  constructor(private readonly options: CredentialCheckOptions) {
    this.now = options.now ?? Date.now
    this.tokens = options.perSecond
    this.refilledAt = this.now()
  }

  /** Runs `check` when its turn comes; rejects with a 429 error when the caller or the queue is over its share. */
  async run<T>(tier: CheckTier, caller: string, check: () => Promise<T>): Promise<T> {
    if (tier === 'suspect') {
      const held = this.suspects.get(caller) ?? 0
      if (held >= this.options.suspectPerCaller) {
        throw new QueryError('too_many_queries', `At most ${this.options.suspectPerCaller} credential checks at once from one address for unknown ids or ids with too many failures; retry shortly`)
      }
      this.suspects.set(caller, held + 1)
    }
    try {
      await this.admit(tier, caller)
      try {
        return await check()
      } finally {
        this.running -= 1
        this.startNext()
      }
    } finally {
      if (tier === 'suspect') {
        const left = (this.suspects.get(caller) ?? 1) - 1
        if (left > 0) this.suspects.set(caller, left)
        else this.suspects.delete(caller)
      }
    }
  }

  private admit(tier: CheckTier, caller: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.queued >= this.options.queued && !this.pushOutFor(tier, caller)) {
        reject(new QueryError('too_many_queries', `${this.options.queued} credential checks are waiting; retry shortly`))
        return
      }
      const waiter: Waiter = { start: resolve, refuse: reject }
      const queue = this.waiting[tier].get(caller)
      if (queue) queue.push(waiter)
      else this.waiting[tier].set(caller, [waiter])
      this.queued += 1
      this.startNext()
    })
  }

  /**
   * Makes room in a full queue by refusing the newest waiting check of the caller holding the most: a
   * suspect one for a known arrival, else one of the arrival's own tier held by a caller with more
   * waiting than the arrival's caller. False when nobody holds more than the arrival's fair share.
   */
  private pushOutFor(tier: CheckTier, caller: string): boolean {
    for (const victimTier of [...TIERS].reverse()) {
      let fullest: [string, Waiter[]] | undefined
      for (const entry of this.waiting[victimTier]) if (!fullest || entry[1].length > fullest[1].length) fullest = entry
      const own = this.waiting[tier].get(caller)?.length ?? 0
      if (fullest && (victimTier !== tier || fullest[1].length > own + 1)) {
        const [victim, queue] = fullest
        const waiter = queue.pop() as Waiter
        if (!queue.length) this.waiting[victimTier].delete(victim)
        this.queued -= 1
        waiter.refuse(new QueryError('too_many_queries', 'The credential checks queue is full and this address holds most of it; retry shortly'))
        return true
      }
      if (victimTier === tier) return false
    }
    return false
  }

  /** Starts waiting checks while a slot and a token are free: known ones first, callers in turn. */
  private startNext(): void {
    while (this.running < this.options.inFlight && this.queued > 0) {
      if (!this.takeToken()) return
      const tier = TIERS.find((name) => this.waiting[name].size > 0) as CheckTier
      const [caller, queue] = this.waiting[tier].entries().next().value as [string, Waiter[]]
      const waiter = queue.shift() as Waiter
      this.waiting[tier].delete(caller)
      if (queue.length) this.waiting[tier].set(caller, queue)
      this.queued -= 1
      this.running += 1
      waiter.start()
    }
  }

  /** Takes a token of the per-second budget, or arranges to try again when the next one is due. */
  private takeToken(): boolean {
    const now = this.now()
    const { perSecond } = this.options
    this.tokens = Math.min(perSecond, this.tokens + ((now - this.refilledAt) * perSecond) / 1000)
    this.refilledAt = now
    if (this.tokens >= 1) {
      this.tokens -= 1
      return true
    }
    if (!this.wakeUp) {
      this.wakeUp = setTimeout(() => {
        this.wakeUp = undefined
        this.startNext()
      }, Math.ceil(((1 - this.tokens) * 1000) / perSecond))
      this.wakeUp.unref()
    }
    return false
  }
}
