// Admission for engine statements: a global limit on statements in flight and a bounded queue, of which
// each client may hold only a share, so that a few clients' backlogs never fill it for everyone else. A
// free slot goes to the waiting client with the fewest requests in the engine (its statements running and
// waiting, each counted by the requests it answers), so a client asking one thing at a time goes before
// clients with several asks in flight; among equals, to the one that has used the least engine time (its
// statements' time in the engine, those still running included). A request that runs statements one after
// another keeps its slot between them (KeptTurn), so that it waits for a turn once, not once per statement.
import { LRUCache } from 'lru-cache'
import { QueryError } from '../core/errors'

export interface SchedulerOptions {
  /** Statements the engine runs at once. */
  maxInFlight: number
  /** Statements waiting for a turn, over all clients; past it, admission fails with `overloaded`. */
  maxQueued: number
  /** Milliseconds on a monotonic clock (`performance.now()` by default), for `stalledForMs`. */
  clock?: () => number
}

/**
 * How many statements a client may have waiting while `clients` clients (itself included) have some
 * waiting: an equal share of the queue with one more share left free, so that a client that has none
 * waiting still gets in (a lone client holds at most half the queue, each of two a third, ...).
 */
export function clientShare(maxQueued: number, clients: number): number {
  return Math.max(1, Math.floor(maxQueued / (clients + 1)))
}

/** Clients whose use is kept while they have nothing running or waiting, the most recently seen ones. */
const DEPARTED_CLIENTS = 10_000

interface Waiter {
  start: () => void
  /** The requests the statement answers (a joined statement's members), read when turns are given. */
  requests: () => number
}

/** A statement answers one request unless told otherwise. */
const ONE_REQUEST = () => 1

/** Releases the statement's slot; call it once the engine has really stopped working on it. */
export type Release = () => void

/**
 * One request's turn across its statements: the slot its statement frees is kept for its next statement,
 * which then starts without waiting behind other clients' statements, until it ends (`end`) or lets the slot
 * go (`letGo`, e.g. when its next statement joins another request's). A slot kept in one queue is let go when
 * its next statement asks another queue.
 */
export class KeptTurn {
  private kept?: { scheduler: FairScheduler; free: () => void }
  private ended = false

  /** Keeps a freed slot of `scheduler` (`free` gives it up); false once the turn has ended. */
  keep(scheduler: FairScheduler, free: () => void): boolean {
    if (this.ended) return false
    this.letGo()
    this.kept = { scheduler, free }
    return true
  }

  /** Whether a slot of `scheduler` was kept, now taken by the request's next statement; one kept elsewhere is let go. */
  claim(scheduler: FairScheduler): boolean {
    if (this.kept?.scheduler === scheduler) {
      this.kept = undefined
      return true
    }
    this.letGo()
    return false
  }

  /** Gives up the kept slot, if any: the next waiting statement takes it. */
  letGo(): void {
    const kept = this.kept
    this.kept = undefined
    kept?.free()
  }

  /** The request has run its last statement: its slot is given up and none is kept again. */
  end(): void {
    this.ended = true
    this.letGo()
  }
}

/** A client's use of the engine while it has statements running or waiting. */
interface ClientUse {
  running: number
  /** The requests its running statements answer. */
  runningRequests: number
  /** The number of its last turn: of two clients that used the same engine time, the one served earlier goes first. */
  lastTurn: number
  /** Engine milliseconds of its statements that ended, from the floor it started at. */
  used: number
  /** The sum of its running statements' start times, for their time so far (`running × now − startedSum`). */
  startedSum: number
}

export class FairScheduler {
  private running = 0
  private queued = 0
  private turns = 0
  /** When a statement last ended, or statements began to run after none did, whichever is later. */
  private progressAt = 0
  /** Waiting statements per client, oldest first. */
  private readonly queues = new Map<string, Waiter[]>()
  /** Per client with statements running or waiting. */
  private readonly clients = new Map<string, ClientUse>()
  /**
   * The use of clients that have nothing running or waiting, for when they come back: a client between two
   * of its requests keeps what it has used instead of starting again at the least use present.
   */
  private readonly departed = new LRUCache<string, { used: number; lastTurn: number }>({ max: DEPARTED_CLIENTS })

  constructor(private readonly options: SchedulerOptions) {}

  queueDepth(): number {
    return this.queued
  }

  inFlight(): number {
    return this.running
  }

  /** How long statements have been running without any of them ending (0 while none runs). */
  stalledForMs(): number {
    return this.running ? this.now() - this.progressAt : 0
  }

  private now(): number {
    return this.options.clock ? this.options.clock() : performance.now()
  }

  /**
   * Waits for a turn for `clientId`'s statement; rejects when the queue is full (`overloaded`, 503), when the
   * client already has its share of it waiting (`too_many_queries`, 429), or when `signal` aborts first.
   * With `kept`, a slot the request's statement before freed is taken at once, and this one's is kept in turn.
   * `requests` is how many requests the statement answers (one unless it is joined), read at each turn given.
   */
  admit(clientId: string, signal?: AbortSignal, kept?: KeptTurn, requests: () => number = ONE_REQUEST): Promise<Release> {
    if (signal?.aborted) {
      kept?.letGo()
      return Promise.reject(signal.reason)
    }
    if (kept?.claim(this)) return Promise.resolve(this.take(clientId, requests(), kept, true))
    if (this.running < this.options.maxInFlight && this.queued === 0) return Promise.resolve(this.take(clientId, requests(), kept))
    if (this.queued >= this.options.maxQueued) {
      return Promise.reject(
        new QueryError('overloaded', `The engine queue is full (${this.options.maxQueued} statements waiting); retry shortly`),
      )
    }
    const waiting = this.queues.get(clientId)?.length ?? 0
    const share = clientShare(this.options.maxQueued, this.queues.size + (waiting ? 0 : 1))
    if (waiting >= share) {
      return Promise.reject(
        new QueryError(
          'too_many_queries',
          `This client has ${waiting} statements waiting for the engine, its share of the queue; retry shortly`,
        ),
      )
    }
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        this.remove(clientId, waiter)
        reject(signal?.reason)
      }
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve(this.take(clientId, requests(), kept))
        },
        requests,
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.useOf(clientId)
      const queue = this.queues.get(clientId)
      if (queue) queue.push(waiter)
      else this.queues.set(clientId, [waiter])
      this.queued += 1
    })
  }

  /** A turn for `clientId`'s statement answering `requests`, in a free slot or (`inKeptSlot`) in the one its request kept. */
  private take(clientId: string, requests: number, kept?: KeptTurn, inKeptSlot = false): Release {
    if (!inKeptSlot) {
      if (this.running === 0) this.progressAt = this.now()
      this.running += 1
    }
    this.turns += 1
    const client = this.useOf(clientId)
    const startedAt = this.now()
    client.running += 1
    client.runningRequests += requests
    client.startedSum += startedAt
    client.lastTurn = this.turns
    let released = false
    return () => {
      if (released) return
      released = true
      this.progressAt = this.now()
      client.running -= 1
      client.runningRequests -= requests
      client.startedSum -= startedAt
      client.used += this.progressAt - startedAt
      if (client.running === 0 && !this.queues.has(clientId)) this.depart(clientId)
      const free = () => {
        this.running -= 1
        this.startNext()
      }
      if (!kept?.keep(this, free)) free()
    }
  }

  /**
   * A client's use, kept while it has statements running or waiting. One that comes (back) starts at the
   * least engine time any present client has used, or at what it had used when it left if that is more: a
   * new or long-quiet client neither waits behind every client's past nor overtakes them all for as long as
   * they have been busy, and a busy client whose requests leave it nothing waiting for a moment loses none
   * of its use.
   */
  private useOf(clientId: string): ClientUse {
    let client = this.clients.get(clientId)
    if (!client) {
      const now = this.now()
      let floor = Infinity
      for (const other of this.clients.values()) floor = Math.min(floor, this.usedBy(other, now))
      const before = this.departed.get(clientId)
      this.departed.delete(clientId)
      const used = Math.max(floor === Infinity ? 0 : floor, before?.used ?? 0)
      client = { running: 0, runningRequests: 0, lastTurn: before?.lastTurn ?? 0, used, startedSum: 0 }
      this.clients.set(clientId, client)
    }
    return client
  }

  /** Forgets a client that has nothing running or waiting, keeping its use for when it comes back. */
  private depart(clientId: string): void {
    const client = this.clients.get(clientId)
    if (!client) return
    this.clients.delete(clientId)
    this.departed.set(clientId, { used: client.used, lastTurn: client.lastTurn })
  }

  /** Engine time `client` has used by `now`, its running statements' time so far included. */
  private usedBy(client: ClientUse, now: number): number {
    return client.used + client.running * now - client.startedSum
  }

  /**
   * Gives each free slot to the waiting client with the fewest requests running or waiting, then the one that
   * has used the least engine time, then the one served earliest: its oldest statement.
   */
  private startNext(): void {
    while (this.running < this.options.maxInFlight && this.queued > 0) {
      const now = this.now()
      let next: { clientId: string; queue: Waiter[]; requests: number; use: ClientUse } | undefined
      for (const [clientId, queue] of this.queues) {
        const use = this.useOf(clientId)
        const candidate = { clientId, queue, requests: queue.reduce((sum, waiter) => sum + waiter.requests(), use.runningRequests), use }
        if (next === undefined || this.before(candidate, next, now)) next = candidate
      }
      const { clientId, queue } = next as NonNullable<typeof next>
      const waiter = queue.shift() as Waiter
      if (!queue.length) this.queues.delete(clientId)
      this.queued -= 1
      waiter.start()
    }
  }

  private before(a: { requests: number; use: ClientUse }, b: { requests: number; use: ClientUse }, now: number): boolean {
    if (a.requests !== b.requests) return a.requests < b.requests
    const [usedA, usedB] = [this.usedBy(a.use, now), this.usedBy(b.use, now)]
    return usedA < usedB || (usedA === usedB && a.use.lastTurn < b.use.lastTurn)
  }

  private remove(clientId: string, waiter: Waiter): void {
    const queue = this.queues.get(clientId)
    const index = queue ? queue.indexOf(waiter) : -1
    if (!queue || index < 0) return
    queue.splice(index, 1)
    this.queued -= 1
    if (queue.length) return
    this.queues.delete(clientId)
    if (!this.clients.get(clientId)?.running) this.depart(clientId)
  }
}
