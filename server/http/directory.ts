// API clients and projects for the request path, from an in-memory copy of both (small) tables that
// statements without parameters refresh, so authentication never waits behind data statements.
import crypto from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { compileTemplate } from '../../queries/core/compiled'
import type { Project } from '../../queries/core/pipeline'
import type { Runner } from '../../queries/run/runner'
import { UUID_PATTERN } from '../../queries/core/validate'
import type { ClientType } from '../client-types'
import { dummyHash, verifySecret } from '../secrets'
import { DEFAULT_CHECKS_PER_SECOND } from '../config'
import { CredentialChecks } from './credential-checks'

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
  /** scrypt checks started per second over the whole process. */
  checksPerSecond?: number
  /** The longest a check waits for its turn before it is refused with a 429. */
  checkWaitMs?: number
  now?: () => number
  verify?: (secret: string, stored: string) => Promise<boolean>
}

/** How the request asking for a check stands: its address, and whether its (address, id) pair is past its failure limit. */
export interface Asker {
  caller: string
  suspect: boolean
}

/**
 * What credentials come to: the client, or a refusal. `remembered`: this very id and secret were refused
 * before and were answered from memory, without a check, so they are no new attempt at guessing.
 */
export type Verdict = { client: ApiClient } | { client: null; remembered: boolean }

/**
 * scrypt checks run at once (one takes tens of ms of a core) and waiting, and the suspect checks one
 * caller (an address) may have running or waiting.
 */
const CHECKS_IN_FLIGHT = 2
const CHECKS_QUEUED = 1_000
const SUSPECT_CHECKS_PER_CALLER = 4
/** While both tiers wait, one check in this many is a suspect one. */
const SUSPECT_CHECK_EVERY = 4
/** A check still waiting this long answers 429 (with Retry-After) rather than leaving its request unanswered. */
export const CHECK_WAIT_MS = 5_000

/** Wrong secrets of live clients and unknown ids remembered, apart from the verified ones so they never push those out. */
const MAX_REFUSED = 10_000

/** The key of one outcome: the id is part of it, so an answer for one id says nothing about another. */
const outcomeKey = (id: string, stored: string, secret: string) =>
  crypto.createHash('sha256').update(`${id}\0${stored}\0${secret}`).digest('base64url')

export class Directory {
  private readonly now: () => number
  private readonly verify: (secret: string, stored: string) => Promise<boolean>
  /**
   * Secrets that matched their stored hash, by (client, hash, secret). A pure function of its key, so it
   * needs no expiry: revocation is read from the copy of the table. Only successes live here.
   */
  private readonly verified: LRUCache<string, true>
  /** Wrong secrets of live clients, by the same key: a client retrying an old secret costs one check. */
  private readonly refused = new LRUCache<string, true>({ max: MAX_REFUSED })
  /** Ids not in the table (or revoked) already checked once against the dummy hash: never checked again. */
  private readonly unknownIds = new LRUCache<string, true>({ max: MAX_REFUSED })
  private readonly dummy: Promise<string>
  private readonly checks: CredentialChecks
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
    this.checks = new CredentialChecks({
      perSecond: options.checksPerSecond ?? DEFAULT_CHECKS_PER_SECOND,
      inFlight: CHECKS_IN_FLIGHT,
      queued: CHECKS_QUEUED,
      suspectPerCaller: SUSPECT_CHECKS_PER_CALLER,
      suspectEvery: SUSPECT_CHECK_EVERY,
      maxWaitMs: options.checkWaitMs ?? CHECK_WAIT_MS,
      now: this.now,
    })
  }

  /**
   * The client for these credentials, or null when they are wrong, unknown or revoked. A secret verified
   * before passes at once, whatever else is waiting. Otherwise the check waits for its turn: a live id's
   * before an unknown one's and before those of a pair past its failure limit (`asker.suspect`), except
   * every 4th turn while both wait; a check still waiting after `CHECK_WAIT_MS` rejects with a 429 error.
   */
  async authenticate(id: string, secret: string, asker: Asker = { caller: '', suspect: false }): Promise<ApiClient | null> {
    return (await this.judge(id, secret, asker)).client
  }

  /** As `authenticate`, saying also whether a refusal came from memory (the same id and secret refused before). */
  async judge(id: string, secret: string, asker: Asker = { caller: '', suspect: false }): Promise<Verdict> {
    if (!UUID_PATTERN.test(id) || !secret) return { client: null, remembered: false }
    const key = id.toLowerCase()
    const row = (await this.current()).clients.get(key)
    if (row === undefined || row.revoked !== 0) {
      // The first try of an unknown or revoked id costs what a live one's does (against a hash nobody's
      // secret matches), so a first answer's time does not tell which ids exist; later tries cost nothing.
      // Each secret is still a new guess (no secret of such an id is remembered), so none is `remembered`.
      if (this.unknownIds.has(key)) return { client: null, remembered: false }
      this.unknownIds.set(key, true)
      const dummy = await this.dummy
      await this.checks.run('suspect', asker.caller, () => this.verify(secret, dummy))
      return { client: null, remembered: false }
    }
    const outcome = outcomeKey(key, row.secret_hash, secret)
    const client = { id: row.id, name: row.name, type: row.type, projectId: row.project_id }
    if (this.verified.get(outcome)) return { client }
    if (this.refused.has(outcome)) return { client: null, remembered: true }
    const valid = await this.checks.run(asker.suspect ? 'suspect' : 'known', asker.caller, () => this.verify(secret, row.secret_hash))
    if (!valid) {
      this.refused.set(outcome, true)
      return { client: null, remembered: false }
    }
    this.verified.set(outcome, true)
    return { client }
  }

  async project(id: string): Promise<Project | null> {
    return (await this.current()).projects.get(id) ?? null
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
