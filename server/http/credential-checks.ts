// Admission for the scrypt checks the verified-secrets cache cannot answer: a global budget of checks per
// second, a few at once, and two tiers, so a flood of guesses never stands in front of a real client's check,
// and no check waits unanswered: every tier gets turns, and a wait has a deadline.
import { QueryError } from '../../queries/core/errors'

/**
 * `known`: a live client id whose (address, id) pair is under its failure limit. `suspect`: an unknown or
 * revoked id (checked against the dummy hash), or a pair past its failure limit. Known checks go first,
 * except that while both tiers wait, one start in `suspectEvery` is a suspect check.
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
  /**
   * While checks of both tiers wait, every `suspectEvery`-th start is a suspect one: a flood that keeps the
   * known tier full cannot starve a cold client whose pair someone pushed past its failure limit.
   */
  suspectEvery: number
  /** The longest a check waits for its turn; past it, it is refused with a 429 instead of waiting on. */
  maxWaitMs: number
  now?: () => number
}

interface Waiter {
  start: () => void
  refuse: (error: QueryError) => void
  /** Refuses the check at its deadline; cleared when it starts or is pushed out. */
  deadline: NodeJS.Timeout
}

const TIERS: readonly CheckTier[] = ['known', 'suspect']

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
  /** Known checks started in a row while a suspect one waited. */
  private knownInARow = 0

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
        throw new QueryError(
          'too_many_queries',
          `At most ${this.options.suspectPerCaller} credential checks at once from one address for unknown ids or ids with too many failures; retry shortly`,
        )
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
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.deadline)
          resolve()
        },
        refuse: (error) => {
          clearTimeout(waiter.deadline)
          reject(error)
        },
        deadline: setTimeout(() => this.expire(tier, caller, waiter), this.options.maxWaitMs),
      }
      waiter.deadline.unref()
      const queue = this.waiting[tier].get(caller)
      if (queue) queue.push(waiter)
      else this.waiting[tier].set(caller, [waiter])
      this.queued += 1
      this.startNext()
    })
  }

  /** Takes a check still waiting at its deadline out of the queue and refuses it. */
  private expire(tier: CheckTier, caller: string, waiter: Waiter): void {
    const queue = this.waiting[tier].get(caller)
    const at = queue?.indexOf(waiter) ?? -1
    if (!queue || at < 0) return
    queue.splice(at, 1)
    if (!queue.length) this.waiting[tier].delete(caller)
    this.queued -= 1
    waiter.refuse(
      new QueryError('too_many_queries', `No credential check turn within ${Math.ceil(this.options.maxWaitMs / 1000)} s; retry shortly`),
    )
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
        waiter.refuse(
          new QueryError('too_many_queries', 'The credential checks queue is full and this address holds most of it; retry shortly'),
        )
        return true
      }
      if (victimTier === tier) return false
    }
    return false
  }

  /** Starts waiting checks while a slot and a token are free: the tier whose turn it is, callers in turn. */
  private startNext(): void {
    while (this.running < this.options.inFlight && this.queued > 0) {
      if (!this.takeToken()) return
      const tier = this.nextTier()
      const [caller, queue] = this.waiting[tier].entries().next().value as [string, Waiter[]]
      const waiter = queue.shift() as Waiter
      this.waiting[tier].delete(caller)
      if (queue.length) this.waiting[tier].set(caller, queue)
      this.queued -= 1
      this.running += 1
      waiter.start()
    }
  }

  /** Known, unless none waits or `suspectEvery - 1` known checks started in a row while a suspect one waited. */
  private nextTier(): CheckTier {
    if (!this.waiting.suspect.size) return 'known'
    if (!this.waiting.known.size || this.knownInARow >= this.options.suspectEvery - 1) {
      this.knownInARow = 0
      return 'suspect'
    }
    this.knownInARow += 1
    return 'known'
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
      this.wakeUp = setTimeout(
        () => {
          this.wakeUp = undefined
          this.startNext()
        },
        Math.ceil(((1 - this.tokens) * 1000) / perSecond),
      )
      this.wakeUp.unref()
    }
    return false
  }
}
