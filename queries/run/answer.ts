// The run stage's one entry: a request's answer from its resource, parse -> plan -> compile -> run -> shape.
// A question of one statement goes through the result cache, the settled check of a session question (its
// rows are the settled days the statement is compiled with), and a statement of its own or joined with
// other requests' waiting for their turn; one of several named statements runs them together, then those
// that follow from their rows; a stream is written chunk by chunk. A request asking `compare` asks the compared
// question after its own, through the same path (queries/core/compare.ts). The HTTP handler and the CLI
// authenticate, call `answer` and write the bytes.
import { comparedWindow } from '../core/compare'
import type { CompiledQuery } from '../core/compiled'
import { asDeclaredRows, type Resource, type Row, type Scope, type StreamHead } from '../core/pipeline'
import { CompiledStatements } from './compiled-statements'
import { DataVersion } from './data-version'
import { laneOf } from './heavy'
import { JoinedRuns } from './joined-runs'
import { ResultCache, type CacheSettings } from './result-cache'
import type { Runner } from './runner'
import { KeptTurn } from './scheduler'
import { SettledChecks } from './settled-check'
import { runStatements, writeStream } from './streams'

/** A request as the run stage takes it: its query string, scope and client, after authentication. */
export interface Question {
  raw: Record<string, unknown>
  scope: Scope
  clientId: string
  /** Aborts when the request goes away: its statements leave the queue or are stopped. */
  signal: AbortSignal
  /** When the request arrived (`performance.now()`): the data version is read no earlier. */
  askedAt: number
  /** The client asked for fresh rows (`Cache-Control: no-cache`): the cached ones are not reused. */
  revalidate: boolean
  /** Told what the request runs, once known: its statement's template, then how the run went. */
  report?(facts: RunFacts): void
}

export interface RunFacts {
  template?: string
  queryMs?: number
  readRows?: number
  readBytes?: number
}

/** How long cached rows hold: whether they came from the cache, when they were stored, for how long. */
export interface Freshness {
  hit: boolean
  storedAt: number
  maxAgeSeconds: number
}

export interface BodyAnswer {
  kind: 'body'
  body: unknown
  /** Another page follows (the next page number). */
  hasMore?: boolean
  /** Another page follows, asked with these parameters (queries/core/pipeline.ts, `Answer`). */
  next?: Record<string, string>
  /** Set when the rows went through the result cache (a resource of one statement). */
  cache?: Freshness
}

/** Where a stream's bytes go, and who hears of its progress. */
export interface StreamSink {
  /** Writes a piece (text, or UTF-8 bytes); resolves once the writer can take more (backpressure). */
  write(piece: string | Uint8Array): Promise<void>
  /** Called after each block (or chunk) with the rows written so far. */
  onProgress?(rows: number): void
}

export interface StreamAnswer {
  kind: 'stream'
  head: StreamHead
  /** Writes the whole stream, its head first, and returns the rows written. */
  writeTo(sink: StreamSink): Promise<number>
}

export type Answered = BodyAnswer | StreamAnswer

export interface AnswerOptions {
  /** Whether the engine is a cluster (the data version is read over its shards). */
  cluster?: string
  cache: CacheSettings
  maxExecutionSeconds: number
  maxResultRows: number
}

/**
 * The freshness of an answer made of two statements' rows: a hit only when both were, as old as the older,
 * and lasting as long as the one that expires first.
 */
function bothFresh(first: Freshness, second: Freshness): Freshness {
  const expiresAt = Math.min(first.storedAt + first.maxAgeSeconds * 1000, second.storedAt + second.maxAgeSeconds * 1000)
  const storedAt = Math.min(first.storedAt, second.storedAt)
  return { hit: first.hit && second.hit, storedAt, maxAgeSeconds: Math.max(0, Math.floor((expiresAt - storedAt) / 1000)) }
}

/** The question with its statements' run facts reported as sums: a compared answer's request runs two. */
function summingReports(question: Question): Question {
  const report = question.report
  if (!report) return question
  const sums: RunFacts = {}
  return {
    ...question,
    report(facts) {
      for (const name of ['queryMs', 'readRows', 'readBytes'] as const) {
        const value = facts[name]
        if (value !== undefined) sums[name] = (sums[name] ?? 0) + value
      }
      report({ ...facts, ...sums })
    },
  }
}

/** Whether a request's window ended before the session lookback, so late data is its only change. */
function isSettled(query: unknown, scope: Scope): boolean {
  const end = (query as { window?: { end?: Date } }).window?.end
  return end instanceof Date && end.getTime() + scope.sessionLookbackMs <= scope.now.getTime()
}

export class Answers {
  private readonly cache: ResultCache
  private readonly settledChecks: SettledChecks
  private readonly joinedRuns: JoinedRuns
  private readonly statements = new CompiledStatements()

  constructor(
    private readonly runner: Runner,
    options: AnswerOptions,
  ) {
    const versions = new DataVersion(runner, options.cluster)
    this.cache = new ResultCache(versions, options.cache)
    this.settledChecks = new SettledChecks(runner, versions, options.maxExecutionSeconds * 1000)
    this.joinedRuns = new JoinedRuns(runner, options.maxResultRows)
  }

  /** The answer of `question` by `resource`; a QueryError on bad input or a failed statement. */
  async answer<Parsed, Planned, Returned extends Row>(
    resource: Resource<Parsed, Planned, Returned>,
    question: Question,
  ): Promise<Answered> {
    const parsed = resource.parse({ ...question.raw }, question.scope)
    const query = resource.plan(parsed)
    const stream = resource.stream
    if (stream?.streams(query)) {
      question.report?.({ template: resource.name })
      const runner = this.runner.forClient(question.clientId)
      return {
        kind: 'stream',
        head: stream.head(query),
        writeTo: (sink) => writeStream({ runner, plan: stream, query, signal: question.signal, ...sink }),
      }
    }
    if (resource.alongside || resource.follow) {
      question.report?.({ template: resource.name })
      return { kind: 'body', ...(await this.runNamed(resource, query, question)) }
    }
    const compare = resource.compare
    const asked = compare?.asked(query)
    if (!compare || !asked?.compare) return { kind: 'body', ...(await this.cachedBody(resource, query, question)) }
    const counted = summingReports(question)
    const main = await this.cachedBody(resource, query, counted)
    // The compared question: the same request over the compared window, restricted to the keys the answer
    // kept, planned and run as any request (its own cache entry); none when the answer kept no key.
    const window = comparedWindow(asked.window, asked.timezone, asked.compare)
    const compared = compare.question({ parsed, planned: query, window, body: main.body })
    const previous = compared === undefined ? undefined : await this.cachedBody(resource, resource.plan(compared), counted)
    return {
      kind: 'body',
      body: compare.merge(main.body, previous?.body, query),
      hasMore: main.hasMore,
      next: main.next,
      cache: previous ? bothFresh(main.cache, previous.cache) : main.cache,
    }
  }

  /** A question of one statement through the result cache, shaped. */
  private async cachedBody<Planned, Returned extends Row>(
    resource: Resource<unknown, Planned, Returned>,
    query: Planned,
    question: Question,
  ): Promise<{ body: unknown; hasMore?: boolean; next?: Record<string, string>; cache: Freshness }> {
    // The cache knows a question by its statement with no day settled: whichever days its check settles, the
    // statement answers the same rows (docs/design/sessions.md), so they are one entry, found before any check.
    // A question asked before gets the statement compiled then, so a repeated request compiles nothing.
    const asked = this.statements.of(resource, query)
    question.report?.({ template: asked.template })
    const { entry, hit } = await this.cache.rows({
      projectId: question.scope.project.id,
      compiled: asked,
      settled: isSettled(query, question.scope),
      signal: question.signal,
      revalidate: question.revalidate,
      run: (signal) => this.run(resource, query, asked, { ...question, signal }),
    })
    const { body, hasMore, next } = resource.shape(asDeclaredRows<Returned>(entry.rows), query, {})
    return { body, hasMore, next, cache: { hit, storedAt: entry.storedAt, maxAgeSeconds: entry.maxAgeSeconds } }
  }

  /**
   * A resource of several statements: `rows` (compiled with its settled check's days, when it has one) and
   * those `alongside` together, then those that `follow` from their rows, all under one time limit (the
   * request's); not cached.
   */
  private async runNamed<Planned, Returned extends Row>(
    resource: Resource<unknown, Planned, Returned>,
    query: Planned,
    question: Question,
  ) {
    const runner = this.runner.forClient(question.clientId)
    const deadline = this.runner.requestDeadline()
    const compiled = await this.compiledWithSettled(resource, query, question, deadline)
    const first = await runStatements(runner, { rows: compiled, ...resource.alongside?.(query) }, question.signal, deadline)
    const followed = resource.follow ? await runStatements(runner, resource.follow(query, first), question.signal, deadline) : {}
    const { rows, ...others } = { ...first, ...followed }
    return resource.shape(asDeclaredRows<Returned>(rows), query, others)
  }

  /** `compile`'s statement with the days its settled check settles (or reuses), as `explain` prints it; none without a check. */
  private async compiledWithSettled<Planned>(
    resource: Resource<unknown, Planned>,
    query: Planned,
    { signal, clientId, askedAt }: Question,
    deadline: ReturnType<Runner['requestDeadline']>,
  ): Promise<CompiledQuery> {
    const check = resource.settledCheck?.(query)
    if (!check) return resource.compile(query)
    const kept = new KeptTurn()
    try {
      return resource.compile(query, await this.settledChecks.rows(check, { signal, clientId, askedAt, deadline, kept }))
    } finally {
      kept.end()
    }
  }

  /**
   * A question of one statement: its settled check first (or its rows reused), then the statement compiled
   * with them, the one that runs (`asked`, compiled with none, when the question has no check).
   */
  private async run<Planned>(
    resource: Resource<unknown, Planned>,
    query: Planned,
    asked: CompiledQuery,
    question: Question,
  ): Promise<Record<string, unknown>[]> {
    const { signal, clientId, askedAt } = question
    // One time limit and one turn for the question: its settled check and its statement share them, so the
    // statement starts in the slot the check frees instead of waiting behind other clients' statements.
    const deadline = this.runner.requestDeadline()
    const kept = new KeptTurn()
    try {
      const check = resource.settledCheck?.(query)
      const settled = check && (await this.settledChecks.rows(check, { signal, clientId, askedAt, deadline, kept }))
      const statement = check ? resource.compile(query, settled) : asked
      // A heavy question's statement runs on the heavy lane, beside the light ones (heavy.ts); its check stays light.
      const options = { signal, clientId, lane: laneOf(resource, query), deadline, kept }
      const { rows, ...run } = resource.joins
        ? await this.joinedRuns.run(resource.joins, { resource: resource.name, query, settled, statement }, options)
        : await this.runner.run<Record<string, unknown>>(statement, options)
      question.report?.({ queryMs: Math.round(run.durationMs), readRows: run.readRows, readBytes: run.readBytes })
      return rows
    } finally {
      kept.end()
    }
  }
}
