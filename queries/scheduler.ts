// Admission for engine statements: a global limit on statements in flight and a bounded queue served
// round-robin across clients, so one client's backlog never stands in front of another client's turn.
import { QueryError } from './errors'

export interface SchedulerOptions {
  /** Statements the engine runs at once. */
  maxInFlight: number
  /** Statements waiting for a turn, over all clients; past it, admission fails with `overloaded`. */
  maxQueued: number
}

interface Waiter {
  start: () => void
}

/** Releases the statement's slot; call it once the engine has really stopped working on it. */
export type Release = () => void

export class FairScheduler {
  private running = 0
  private queued = 0
  /** Waiting statements per client; a Map iterates in insertion order, which makes the round-robin ring. */
  private readonly queues = new Map<string, Waiter[]>()

  constructor(private readonly options: SchedulerOptions) {}

  queueDepth(): number {
    return this.queued
  }

  inFlight(): number {
    return this.running
  }

  /** Waits for a turn for `clientId`'s statement; rejects when the queue is full or `signal` aborts first. */
  admit(clientId: string, signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted()
    if (this.running < this.options.maxInFlight && this.queued === 0) return Promise.resolve(this.take())
    if (this.queued >= this.options.maxQueued) {
      return Promise.reject(new QueryError('overloaded', `The engine queue is full (${this.options.maxQueued} statements waiting); retry shortly`))
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        this.remove(clientId, waiter)
        reject(signal?.reason)
      }
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve(this.take())
        },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      const queue = this.queues.get(clientId)
      if (queue) queue.push(waiter)
      else this.queues.set(clientId, [waiter])
      this.queued += 1
    })
  }

  private take(): Release {
    this.running += 1
    let released = false
    return () => {
      if (released) return
      released = true
      this.running -= 1
      this.startNext()
    }
  }

  /** Gives the free slots to the clients in ring order: the first client's oldest statement, then it goes last. */
  private startNext(): void {
    while (this.running < this.options.maxInFlight && this.queued > 0) {
      const [clientId, queue] = this.queues.entries().next().value as [string, Waiter[]]
      const waiter = queue.shift() as Waiter
      this.queues.delete(clientId)
      if (queue.length) this.queues.set(clientId, queue)
      this.queued -= 1
      waiter.start()
    }
  }

  private remove(clientId: string, waiter: Waiter): void {
    const queue = this.queues.get(clientId)
    const index = queue ? queue.indexOf(waiter) : -1
    if (!queue || index < 0) return
    queue.splice(index, 1)
    this.queued -= 1
    if (!queue.length) this.queues.delete(clientId)
  }
}
