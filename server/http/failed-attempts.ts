// Failed authentications per (address, client id) in a fixed window, counted only once a new secret failed
// to verify (one refused before, answered from memory, is no new guess): a pair past its limit has its checks
// take the suspect tier's turns and its failures answer 429, while credentials that verify still pass, so
// nobody can lock a client out by failing on its behalf.
import { LRUCache } from 'lru-cache'
import { UUID_PATTERN } from '../../queries/core/validate'

export interface FailedAttemptOptions {
  /** Failures a pair may have in a window before it is limited. */
  limit: number
  windowMs: number
  /** Pairs remembered (the least recently failed go first). */
  maxPairs?: number
}

export class FailedAttempts {
  private readonly counts: LRUCache<string, number>

  constructor(private readonly options: FailedAttemptOptions) {
    this.counts = new LRUCache({ max: options.maxPairs ?? 100_000, ttl: options.windowMs })
  }

  /** Whether the pair has used up its failures in the current window. */
  exceeded(address: string, id: string): boolean {
    return (this.counts.get(keyOf(address, id)) ?? 0) >= this.options.limit
  }

  /** Past the limit, the seconds until the pair's window ends (without counting anything), else undefined. */
  retryAfter(address: string, id: string): number | undefined {
    return this.exceeded(address, id) ? secondsLeft(this.counts.getRemainingTTL(keyOf(address, id))) : undefined
  }

  /** Counts one failure; past the limit, the seconds until the pair's window ends, else undefined. */
  record(address: string, id: string): number | undefined {
    const key = keyOf(address, id)
    const count = (this.counts.get(key) ?? 0) + 1
    // The window starts at the pair's first failure; later failures do not extend it.
    this.counts.set(key, count, { noUpdateTTL: true })
    if (count <= this.options.limit) return undefined
    return secondsLeft(this.counts.getRemainingTTL(key))
  }
}

const secondsLeft = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/** Ids that are not UUIDs can never be valid, so they share one key per address. */
function keyOf(address: string, id: string): string {
  return `${address}|${UUID_PATTERN.test(id) ? id.toLowerCase() : ''}`
}
