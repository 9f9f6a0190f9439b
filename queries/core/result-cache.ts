// The in-process result cache: answers keyed by project, compiled SQL, params and the data version of
// `events`; identical requests in flight share one statement; memory bounded in bytes (lru-cache).
import crypto from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { CompiledQuery } from './compiled'
import type { DataVersion } from './data-version'
import { SharedRuns } from './shared-runs'

export interface CacheSettings {
  /** Memory for cached bodies, in bytes (0: no cache). */
  maxBytes: number
  /** How old a reading of the data version may be before a request reads it again. */
  versionPollMs: number
  /** Lifetime of an answer whose window reaches into the session lookback before now. */
  recentMaxAgeSeconds: number
  /** Lifetime of an answer whose window ended before that. */
  settledMaxAgeSeconds: number
}

/** An answer as it is sent: its JSON text and what the response headers need. */
export interface CachedAnswer {
  body: string
  etag: string
  hasMore: boolean
  storedAt: number
  maxAgeSeconds: number
}

export interface Lookup {
  projectId: string
  compiled: CompiledQuery
  /** Whether the window ended before the session lookback (its data is settled). */
  settled: boolean
  signal: AbortSignal
  /** The client asked for a fresh answer (`Cache-Control: no-cache`): a stored one is not served. */
  revalidate?: boolean
  /** Runs the statement and shapes its answer; called once for any number of identical requests. */
  compute(signal: AbortSignal): Promise<{ body: unknown; hasMore?: boolean }>
}

const etagOf = (body: string) => `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`

/** Whether an `If-None-Match` header names this ETag (a list, weak tags or `*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}

export class ResultCache {
  private readonly entries: LRUCache<string, CachedAnswer>
  /** One statement for every identical request in flight; it is aborted only when all of them went away. */
  private readonly running = new SharedRuns<CachedAnswer>()

  constructor(
    private readonly versions: DataVersion,
    private readonly settings: CacheSettings,
  ) {
    this.entries = new LRUCache({ maxSize: Math.max(1, settings.maxBytes), sizeCalculation: (entry, key) => entry.body.length * 2 + key.length + 200 })
  }

  /**
   * The answer from the cache (`hit`), or computed now, shared with identical requests in flight and
   * stored. With the cache off (0 bytes) or without a current data version, nothing is served from or
   * stored in the cache, and the answer's lifetime is 0.
   */
  async answer(lookup: Lookup): Promise<{ answer: CachedAnswer; hit: boolean }> {
    const version = this.settings.maxBytes > 0 ? await this.currentVersion() : undefined
    if (version === undefined) return { answer: await this.compute(lookup, 0, lookup.signal), hit: false }
    const maxAgeSeconds = lookup.settled ? this.settings.settledMaxAgeSeconds : this.settings.recentMaxAgeSeconds
    const key = `${version}:${crypto.createHash('sha256').update(JSON.stringify([lookup.projectId, lookup.compiled.template, lookup.compiled.sql, lookup.compiled.params])).digest('base64url')}`
    const cached = lookup.revalidate ? undefined : this.entries.get(key)
    if (cached) return { answer: cached, hit: true }
    const answer = await this.running.run(key, lookup.signal, (signal) => this.compute(lookup, maxAgeSeconds, signal))
    this.entries.set(key, answer, { ttl: maxAgeSeconds * 1000 })
    return { answer, hit: false }
  }

  private async compute(lookup: Lookup, maxAgeSeconds: number, signal: AbortSignal): Promise<CachedAnswer> {
    const { body, hasMore } = await lookup.compute(signal)
    const text = JSON.stringify(body)
    return { body: text, etag: etagOf(text), hasMore: hasMore ?? false, storedAt: Date.now(), maxAgeSeconds }
  }

  /**
   * The data version: embedded, known at once; else from a reading that started within `versionPollMs`,
   * one more than half that old served while a new one is taken in the background, so that a steady
   * stream of requests never waits for it, an older one awaited (one reading at a time, shared with the
   * settled checks).
   */
  private async currentVersion(): Promise<string | undefined> {
    const now = performance.now()
    this.versions.since(now - this.settings.versionPollMs / 2).catch(() => undefined)
    return this.versions.since(now - this.settings.versionPollMs).catch(() => undefined)
  }
}
