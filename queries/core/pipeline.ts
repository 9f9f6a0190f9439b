// The query pipeline: parse -> plan -> compile -> run -> shape. Only `run` does I/O, so any request can
// be compiled and explained without touching ClickHouse.
import type { CompiledQuery } from './compiled'
import type { Lane } from './run'

export interface Project {
  id: string
  name: string
  timezone: string
}

/** What a request is evaluated against: its project, the clock and the gateway's settings. */
export interface Scope {
  project: Project
  now: Date
  /** How far before and after a window session rows are read (README, "Sessions"). */
  sessionLookbackMs: number
}

export type PlanStep<Q> = (query: Q) => Q

export interface Answer {
  body: unknown
  hasMore?: boolean
}

export interface Resource<Q> {
  /** The route segment, e.g. `live`. */
  name: string
  /** JSON Schema of the query-string parameters: validates requests and feeds /openapi.json. */
  schema: object
  /** `bounded` when the statement's cost is bounded by construction, so it runs beside heavy ones. */
  lane?: Lane
  parse(raw: Record<string, unknown>, scope: Scope): Q
  plan: PlanStep<Q>[]
  compile(query: Q): CompiledQuery
  shape(rows: Record<string, unknown>[], query: Q): Answer
}

export interface Prepared<Q> {
  query: Q
  compiled: CompiledQuery
}

export function prepare<Q>(resource: Resource<Q>, raw: Record<string, unknown>, scope: Scope): Prepared<Q> {
  const parsed = resource.parse(raw, scope)
  const query = resource.plan.reduce((current, step) => step(current), parsed)
  return { query, compiled: resource.compile(query) }
}

/** `2024-03-01 12:00:00.000` (UTC), the text form bound to `DateTime64(3, 'UTC')` placeholders. */
export function toClickHouseTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '')
}
