// The in-process result cache: the rows the engine returned, keyed by project, compiled SQL, params and the
// data version; identical requests in flight share one statement; memory bounded in bytes (lru-cache).
// It holds rows, never answers: a statement's SQL and params decide its rows, and everything else a response
// depends on (formulas, display names, rounding, paging) is applied by `shape` for each request.
import crypto from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { CompiledQuery } from '../core/compiled'
import type { DataVersion } from './data-version'
import type { Row } from '../core/pipeline'
import { SharedRuns } from './shared-runs'

export interface CacheSettings {
  /** Memory for cached rows, in bytes (0: no cache). */
  maxBytes: number
  /** How old a reading of the data version may be before a request reads it again. */
  versionPollMs: number
  /** Lifetime of rows whose window reaches into the session lookback before now (0: not cached). */
  recentMaxAgeSeconds: number
  /** Lifetime of rows whose window ended before that (0: not cached). */
  settledMaxAgeSeconds: number
}

/** A statement's rows as the engine returned them (frozen: every request shapes them anew), and their age. */
export interface CachedRows {
  rows: readonly Row[]
  storedAt: number
  maxAgeSeconds: number
}

export interface Lookup {
  projectId: string
  compiled: CompiledQuery
  /** Whether the window ended before the session lookback (its data is settled). */
  settled: boolean
  signal: AbortSignal
  /** The client asked for a fresh answer (`Cache-Control: no-cache`): stored rows are not served. */
  revalidate?: boolean
  /** Runs the statement; called once for any number of identical requests. */
  run(signal: AbortSignal): Promise<Record<string, unknown>[]>
}

/** A response body's ETag. */
export const etagOf = (body: string) => `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`

/** Whether an `If-None-Match` header names this ETag (a list, weak tags or `*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}

/** Rows no request can change: `shape` reads them, and a mutation would reach every later request. */
function freezeRows(rows: Record<string, unknown>[]): readonly Row[] {
  for (const row of rows) {
    for (const value of Object.values(row)) if (typeof value === 'object' && value !== null) Object.freeze(value)
    Object.freeze(row)
  }
  return Object.freeze(rows)
}

/** What a cache entry weighs: its rows' JSON text, two bytes a character, plus the key and some overhead. */
const sizeOf = (entry: CachedRows, key: string) => JSON.stringify(entry.rows).length * 2 + key.length + 200

export class ResultCache {
  private readonly entries: LRUCache<string, CachedRows>
  /** One statement for every identical request in flight; it is aborted only when all of them went away. */
  private readonly running = new SharedRuns<CachedRows>()
  /** Each statement's digest, taken once: a question asked again brings the same statement (compiled-statements.ts). */
  private readonly digests = new WeakMap<CompiledQuery, string>()

  constructor(
    private readonly versions: DataVersion,
    private readonly settings: CacheSettings,
  ) {
    this.entries = new LRUCache({ maxSize: Math.max(1, settings.maxBytes), sizeCalculation: sizeOf })
  }

  /**
   * The statement's rows from the cache (`hit`), or run now, shared with identical requests in flight. Rows
   * are stored only when the data version is known and still the same once the statement has run (a reading
   * taken after it began): rows read while a write was under way, or while one finished, are never stored.
   * With the cache off (0 bytes), a lifetime of 0, or no current data version, nothing is served from or
   * stored in the cache, and the rows' lifetime is 0.
   */
  async rows(lookup: Lookup): Promise<{ entry: CachedRows; hit: boolean }> {
    const maxAgeSeconds = lookup.settled ? this.settings.settledMaxAgeSeconds : this.settings.recentMaxAgeSeconds
    const version = this.settings.maxBytes > 0 && maxAgeSeconds > 0 ? await this.currentVersion() : undefined
    if (version === undefined) return { entry: await this.compute(lookup, 0, lookup.signal), hit: false }
    const key = JSON.stringify([version, lookup.projectId, this.digestOf(lookup.compiled)])
    const cached = lookup.revalidate ? undefined : this.entries.get(key)
    if (cached) return { entry: cached, hit: true }
    const startedAt = performance.now()
    const entry = await this.running.run(key, lookup.signal, (signal) => this.compute(lookup, maxAgeSeconds, signal))
    this.storeIfCurrent(key, entry, version, startedAt)
    return { entry, hit: false }
  }

  private digestOf(compiled: CompiledQuery): string {
    let digest = this.digests.get(compiled)
    if (digest === undefined) {
      digest = crypto
        .createHash('sha256')
        .update(JSON.stringify([compiled.template, compiled.sql, compiled.params]))
        .digest('base64url')
      this.digests.set(compiled, digest)
    }
    return digest
  }

  /** Stores `entry` once a version reading begun after its statement began says nothing was written meanwhile. */
  private storeIfCurrent(key: string, entry: CachedRows, version: string, startedAt: number): void {
    this.versions.since(startedAt).then(
      (after) => {
        if (after === version) this.entries.set(key, entry, { ttl: entry.maxAgeSeconds * 1000 })
      },
      () => undefined,
    )
  }

  private async compute(lookup: Lookup, maxAgeSeconds: number, signal: AbortSignal): Promise<CachedRows> {
    const rows = freezeRows(await lookup.run(signal))
    return { rows, storedAt: Date.now(), maxAgeSeconds }
  }

  /**
   * The data version: embedded, known at once; else from a reading that started within `versionPollMs`,
   * one more than half that old served while a new one is taken in the background, so that a steady
   * stream of requests never waits for it, an older one awaited (one reading at a time, shared with the
   * settled checks). Undefined while a write is under way, or when no reading can be had.
   */
  private async currentVersion(): Promise<string | undefined> {
    const now = performance.now()
    this.versions.since(now - this.settings.versionPollMs / 2).catch(() => undefined)
    return this.versions.since(now - this.settings.versionPollMs).catch(() => undefined)
  }
}
