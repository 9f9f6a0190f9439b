// API clients and projects for the request path, from an in-memory copy of both (small) tables that
// statements without parameters refresh, so authentication never waits behind data statements.
import crypto from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { compileTemplate } from '../../queries/core/compiled'
import type { Project } from '../../queries/core/pipeline'
import { QueryError } from '../../queries/core/errors'
import type { Runner } from '../../queries/core/run'
import { FairScheduler } from '../../queries/core/scheduler'
import { UUID_PATTERN } from '../../queries/core/validate'
import { dummyHash, verifySecret } from '../secrets'

export type ClientType = 'read' | 'write' | 'root'

export interface ApiClient {
  id: string
  name: string
  type: ClientType
  projectId: string
}

interface ClientRow {
  id: string
  name: string
  type: ClientType
  project_id: string
  secret_hash: string
  revoked: number
}

interface Snapshot {
  clients: Map<string, ClientRow>
  projects: Map<string, Project>
  /** When the statements that read it started. */
  takenAt: number
}

export interface DirectoryOptions {
  /** Verified secrets kept (the least recently used go first). */
  maxVerified?: number
  now?: () => number
  verify?: (secret: string, stored: string) => Promise<boolean>
}

/**
 * scrypt checks run at once (each takes one of libuv's 4 threads for tens of ms), and the most one
 * caller (an address) may have running or waiting: a caller trying many ids waits for its own checks and
 * is refused past that, while every other caller's check takes the next free turn.
 */
const CHECKS_IN_FLIGHT = 2
const CHECKS_PER_CALLER = 4
const CHECKS_QUEUED = 1_000


export class Directory {
  private readonly now: () => number
  private readonly verify: (secret: string, stored: string) => Promise<boolean>
  /**
   * Outcomes of checking a secret against a stored hash, by (client, hash, secret). A pure function of
   * its key, so it needs no expiry: revocation is read from the copy of the table.
   */
  private readonly verified: LRUCache<string, boolean>
  private readonly dummy: Promise<string>
  /** Checks not answered from `verified` take turns round-robin by caller. */
  private readonly checks = new FairScheduler({ maxInFlight: CHECKS_IN_FLIGHT, maxQueued: CHECKS_QUEUED })
  /** Checks running or waiting, per caller. */
  private readonly checking = new Map<string, number>()
  private snapshot?: Snapshot
  /** The latest reading of the tables under way, and when it started. */
  private pending?: { promise: Promise<Snapshot>; takenAt: number }

  /**
   * `cacheMs` is the oldest copy served: a new or revoked client (and a new project) is seen within
   * this long; 0 reads both tables on every request.
   */
  constructor(
    private readonly runner: Pick<Runner, 'control'>,
    private readonly cacheMs: number,
    options: DirectoryOptions = {},
  ) {
    this.now = options.now ?? Date.now
    this.verify = options.verify ?? verifySecret
    this.verified = new LRUCache({ max: options.maxVerified ?? 10_000 })
    this.dummy = dummyHash()
  }

  /**
   * The client for these credentials, or null when they are wrong, unknown or revoked. `caller` (the
   * request's address) takes turns with other callers for the scrypt checks the cache cannot answer.
   */
  async authenticate(id: string, secret: string, caller = ''): Promise<ApiClient | null> {
    if (!UUID_PATTERN.test(id) || !secret) return null
    const row = (await this.current()).clients.get(id.toLowerCase())
    const live = row !== undefined && row.revoked === 0
    // Unknown and revoked ids are checked too, against a hash nobody's secret matches: the same work.
    const valid = await this.check({ id: id.toLowerCase(), secret, stored: live ? row.secret_hash : await this.dummy, caller })
    return live && valid ? { id: row.id, name: row.name, type: row.type, projectId: row.project_id } : null
  }

  async project(id: string): Promise<Project | null> {
    return (await this.current()).projects.get(id) ?? null
  }

  private async check({ id, secret, stored, caller }: { id: string; secret: string; stored: string; caller: string }): Promise<boolean> {
    // The id is part of the key, so a cached answer for one unknown id says nothing about another.
    const key = crypto.createHash('sha256').update(`${id}\0${stored}\0${secret}`).digest('base64url')
    const hit = this.verified.get(key)
    if (hit !== undefined) return hit
    const pending = this.checking.get(caller) ?? 0
    if (pending >= CHECKS_PER_CALLER) throw new QueryError('too_many_queries', `At most ${CHECKS_PER_CALLER} credential checks at once from one address; retry shortly`)
    this.checking.set(caller, pending + 1)
    try {
      const release = await this.checks.admit(caller)
      try {
        const valid = await this.verify(secret, stored)
        this.verified.set(key, valid)
        return valid
      } finally {
        release()
      }
    } finally {
      const left = (this.checking.get(caller) ?? 1) - 1
      if (left > 0) this.checking.set(caller, left)
      else this.checking.delete(caller)
    }
  }

  /**
   * The copy, if it is younger than cacheMs (read again in the background once it is half that), else
   * a reading started less than cacheMs ago, else a new one.
   */
  private async current(): Promise<Snapshot> {
    const now = this.now()
    const fresh = (takenAt: number) => now - takenAt < this.cacheMs
    if (this.snapshot && fresh(this.snapshot.takenAt)) {
      if (now - this.snapshot.takenAt >= this.cacheMs / 2 && !this.pending) this.refresh().catch(() => undefined)
      return this.snapshot
    }
    if (this.pending && fresh(this.pending.takenAt)) return this.pending.promise
    return this.refresh()
  }

  private refresh(): Promise<Snapshot> {
    const takenAt = this.now()
    const promise: Promise<Snapshot> = this.load(takenAt).finally(() => {
      if (this.pending?.promise === promise) this.pending = undefined
    })
    this.pending = { promise, takenAt }
    return promise
  }

  private async load(takenAt: number): Promise<Snapshot> {
    const [clients, projects] = await Promise.all([
      this.runner.control<ClientRow>(compileTemplate('control/api-clients.sql', {})),
      this.runner.control<Project>(compileTemplate('control/projects.sql', {})),
    ])
    const snapshot = {
      clients: new Map(clients.map((row) => [row.id.toLowerCase(), row])),
      projects: new Map(projects.map((row) => [row.id, row])),
      takenAt,
    }
    // Readings may overlap; an older one finishing last must not replace a newer one.
    if (!this.snapshot || takenAt >= this.snapshot.takenAt) this.snapshot = snapshot
    return snapshot
  }
}
