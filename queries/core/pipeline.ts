// The query pipeline: parse -> plan -> compile -> run -> shape. Only `run` does I/O, so any request can
// be compiled and explained without touching ClickHouse.
import type { CompareHook } from './compare'
import type { CompiledQuery } from './compiled'

export interface Project {
  id: string
  name: string
  timezone: string
}

/** What a request is evaluated against: its project, the clock and the gateway's settings. */
export interface Scope {
  project: Project
  now: Date
  /** How far before and after a window session rows are read (docs/design/sessions.md). */
  sessionLookbackMs: number
}

/**
 * A row of a session question's settled check (sessions/settled-days.sql): a day of its window read
 * combined, and the compaction it is read from (as text: beyond 2^53).
 */
export interface SettledRow {
  day: string
  compaction: string
}

/**
 * Where a statement runs: with the data statements, on the lane for bounded-cost ones, or on the lane for
 * heavy ones, beside the data statements at a low priority (queries/run/heavy.ts).
 */
export type Lane = 'data' | 'bounded' | 'heavy'

/** A plan step: a pure function that completes a query; its result's type may be narrower than its input's. */
export type PlanStep<In, Out = In> = (query: In) => Out

/** The plan steps of a resource, run in order: each takes what the step before it returns. */
export function planSteps<A, B>(first: PlanStep<A, B>): PlanStep<A, B>
export function planSteps<A, B, C>(first: PlanStep<A, B>, second: PlanStep<B, C>): PlanStep<A, C>
export function planSteps<A, B, C, D>(first: PlanStep<A, B>, second: PlanStep<B, C>, third: PlanStep<C, D>): PlanStep<A, D>
export function planSteps<A, B, C, D, E>(
  first: PlanStep<A, B>,
  second: PlanStep<B, C>,
  third: PlanStep<C, D>,
  fourth: PlanStep<D, E>,
): PlanStep<A, E>
export function planSteps<A, B, C, D, E, F>(
  first: PlanStep<A, B>,
  second: PlanStep<B, C>,
  third: PlanStep<C, D>,
  fourth: PlanStep<D, E>,
  fifth: PlanStep<E, F>,
): PlanStep<A, F>
export function planSteps(...steps: PlanStep<unknown>[]): PlanStep<unknown> {
  return (query) => steps.reduce((current, step) => step(current), query)
}

/**
 * Requests of the resources that share one `Joins` and wait for a turn together are answered by one
 * statement (queries/run/joined-runs.ts): a dashboard's breakdowns of one window read its sessions once.
 */
export interface Joins<Planned> {
  /** Names the family in the key of a waiting batch. */
  family: string
  /** Equal for the queries of the family that one statement can answer together. */
  key(query: Planned): string
  /** Rows one member's answer may read, counted against the statement's `max_result_rows`. */
  rows(query: Planned): number
  /**
   * One statement for two or more members (distinct resources, queries of one key), with the settled days
   * their check gave (one key, one check), binding the same params as each member's own; each row names
   * its member's index in `member`.
   */
  compile(members: { resource: string; query: Planned }[], settled?: readonly SettledRow[]): CompiledQuery
}

/** A row as the engine returned it. */
export type Row = Readonly<Record<string, unknown>>

/**
 * The engine's rows of a statement as the row type its template declares (`Rows` of queries/core/rows.generated.ts,
 * generated from the template's `-- @returns`). The one place rows become that type, unlooked at: the run stage
 * hands `shape` its rows through it (queries/run/answer.ts), and test/integration/row-columns.test.ts checks every
 * template's declared columns, names, order and types, against what the engine describes for the statements the
 * routes compile.
 */
export function asDeclaredRows<R extends Row>(rows: readonly Row[]): readonly R[] {
  return rows as readonly R[]
}

export interface Answer {
  body: unknown
  hasMore?: boolean
}

/**
 * A route's pipeline. `parse` gives the request's query, `plan` completes it (defaults, read ranges,
 * sorted filters, what it reads), and `compile` and `shape` take the planned query. A session question
 * has a `settledCheck`, which the run stage runs (or reuses) before `compile`: its rows, the settled days,
 * are `compile`'s second input, so the statement compiled is the one that runs. Its statements are named: `compile`'s
 * is `rows`; `alongside` names those run together with it (a page's `count`), `follow` those that need
 * their rows (the `profiles` of a page's rows), and `shape` takes every one's rows. With `stream`, a
 * request it `streams` is answered by a stream of chunks instead of a body. `Returned` is the row of
 * `compile`'s template (e.g. `Rows['insights/live.sql']`, queries/core/rows.generated.ts).
 */
export interface Resource<Parsed, Planned = Parsed, Returned extends Row = Row> {
  /** The route segment, e.g. `live`. */
  name: string
  /** JSON Schema of the query-string parameters: validates requests and feeds /openapi.json. */
  schema: object
  /** `bounded` when the statement's cost is bounded by construction, so it runs beside heavy ones. */
  lane?: Lane
  /** When given, requests waiting for a turn together may be answered by one statement. */
  joins?: Joins<Planned>
  parse(raw: Record<string, unknown>, scope: Scope): Parsed
  plan(query: Parsed): Planned
  /** A session question's settled check (sessions/settled-days.sql), run before `compile`. */
  settledCheck?(query: Planned): CompiledQuery
  /**
   * The statement, final. With a `settledCheck`, `settled` are its rows; without them no day is settled
   * (every day regrouped from partial rows: the same answers, read the slow way).
   */
  compile(query: Planned, settled?: readonly SettledRow[]): CompiledQuery
  /** Statements run beside `compile`'s, by name; when one fails, the others are cancelled. */
  alongside?(query: Planned): StatementSet
  /** Statements that need the rows of `compile`'s (`rows`) and `alongside`'s, by name. */
  follow?(query: Planned, rows: RowSets): StatementSet
  /**
   * `rows`: `compile`'s rows as the engine returned them, shared with other requests through the result
   * cache (read, never changed); `others`: the rows of `alongside`'s and `follow`'s statements, by name.
   */
  shape(rows: readonly Returned[], query: Planned, others?: RowSets): Answer
  /** How a request is answered as a stream of chunks, when it `streams`. */
  stream?: StreamPlan<Planned>
  /** How a request asking `compare` is compared with the window before (queries/core/compare.ts). */
  compare?: CompareHook<Parsed, Planned>
}

/** What a streamed answer is sent as, and the bytes before its first chunk (a CSV header). */
export interface StreamHead {
  contentType: string
  fileName: string
  text: string
}

/** A chunk's bytes, its rows, and the position the next chunk starts after (none: the stream is done). */
export interface Chunk<Position> {
  text: string
  count: number
  next?: Position
}

/**
 * A resource's answer as a stream. `compileStream` is the whole stream as one statement, whose output passes
 * through as the engine writes it, where lanes can read a statement a block at a time and nothing follows
 * from its rows; otherwise `compileChunk` continues after a position, `followChunk` compiles what a
 * chunk's output needs (by name), and `shapeChunk` gives its bytes.
 */
export interface StreamPlan<Planned, Position = unknown> {
  streams(query: Planned): boolean
  head(query: Planned): StreamHead
  compileStream(query: Planned): CompiledQuery | undefined
  compileChunk(query: Planned, after: Position | undefined): CompiledQuery
  followChunk(query: Planned, output: string): StatementSet
  shapeChunk(output: string, follow: RowSets, query: Planned): Chunk<Position>
}

/**
 * A resource whatever its query types, for tables of routes: TypeScript compares method parameters
 * bivariantly, so every `Resource<P, Q>` is one, and `prepare` keeps each resource's own types together.
 */
export type AnyResource = Resource<unknown, unknown>

/** Rows of several statements, by the statements' names. */
export type RowSets = Record<string, Record<string, unknown>[]>

/** Statements by name, run together: when one fails, the others are cancelled. */
export type StatementSet = Record<string, CompiledQuery>

export interface Prepared<Q> {
  query: Q
  compiled: CompiledQuery
}

export function prepare<Parsed, Planned>(
  resource: Resource<Parsed, Planned>,
  raw: Record<string, unknown>,
  scope: Scope,
): Prepared<Planned> {
  const query = resource.plan(resource.parse(raw, scope))
  return { query, compiled: resource.compile(query) }
}

/** `2024-03-01 12:00:00.000` (UTC), the text form bound to `DateTime64(3, 'UTC')` placeholders. */
export function toClickHouseTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '')
}
