// Where OpenPanel's shape and Quarry's richer answer share a path (docs/openpanel.md, "When shapes collide"):
// the route answers OpenPanel's shape, and Quarry's with `detail=true`. One parameter for every such route,
// and two ways to build one: the same statement shaped two ways (`briefUnlessDetailed`), or two resources
// of one statement each, the request's `detail` choosing which runs (`eitherByDetail`).
import { QueryError, invalid, type Issue } from './errors'
import type { CompareHook } from './compare'
import type { Window } from './dates'
import type { Answer, Resource, Row, Scope } from './pipeline'
import { checkedParams, compileSchema } from './validate'

/** The parameter, as every such route's schema declares it. */
export const detailProperty = {
  type: 'boolean',
  default: false,
  description: 'Answers Quarry\'s richer shape instead of OpenPanel\'s (docs/openpanel.md, "When shapes collide")',
}

const validateDetail = compileSchema({ type: 'object', properties: { detail: detailProperty } })

/** A schema with `detail` beside its own properties. */
export function withDetailProperty(schema: object): object {
  const { properties, ...rest } = schema as { properties: Record<string, object> }
  return { ...rest, properties: { ...properties, detail: detailProperty } }
}

/**
 * `detail` read off the query string, and the rest for the resource's own parse; every problem of both in one
 * 400: `own` runs even when `detail` is bad, and its issues are added to `detail`'s.
 */
function parseDetail<T>(raw: Record<string, unknown>, own: (rest: Record<string, unknown>) => T): { detail: boolean; parsed: T } {
  const { detail: given, ...rest } = raw
  const { typed, issues } = checkedParams<{ detail: boolean }>(validateDetail, given === undefined ? {} : { detail: given })
  let parsed: T | undefined
  const ownIssues: Issue[] = []
  try {
    parsed = own(rest)
  } catch (error) {
    if (!(error instanceof QueryError) || error.code !== 'invalid_request') throw error
    ownIssues.push(...error.issues)
  }
  if (issues.length || ownIssues.length) throw invalid([...issues, ...ownIssues])
  return { detail: typed.detail, parsed: parsed as T }
}

/** Whether a raw query string asks Quarry's answer (`detail=true`), read before its parameters are checked. */
export const asksDetail = (raw: Record<string, unknown>): boolean => raw.detail === true || raw.detail === 'true'

export interface Detailed {
  detail: boolean
}

/**
 * `resource` answering OpenPanel's shape, `brief` of its own answer, unless the request says `detail=true`:
 * one statement either way, so both shapes share its cached rows.
 */
export function briefUnlessDetailed<P, Q, R extends Row>(
  resource: Resource<P, Q, R>,
  brief: (answer: Answer, query: Q) => Answer,
): Resource<P & Detailed, Q & Detailed, R> {
  return {
    ...resource,
    schema: withDetailProperty(resource.schema),
    parse(raw: Record<string, unknown>, scope: Scope) {
      const { detail, parsed } = parseDetail(raw, (rest) => resource.parse(rest, scope))
      return { ...parsed, detail }
    },
    plan: (query) => ({ ...resource.plan(query), detail: query.detail }),
    shape(rows, query, others) {
      const answer = resource.shape(rows, query, others)
      return query.detail || isCompared(resource.compare, query) ? answer : brief(answer, query)
    },
    compare: resource.compare && detailedCompare(resource.compare),
  }
}

/** Whether a request asks `compare`: its rows carry figures, so it gets the detailed answer whatever `detail` says. */
const isCompared = <P, Q>(hook: CompareHook<P, Q> | undefined, query: Q) => Boolean(hook?.asked(query).compare)

/** A resource's compare hook for its `detail` route: the compared question is answered in the detailed shape, as the main one. */
function detailedCompare<P, Q>(hook: CompareHook<P, Q>): CompareHook<P & Detailed, Q & Detailed> {
  return {
    asked: (query) => hook.asked(query),
    question(options) {
      const compared = hook.question(options)
      return compared === undefined ? undefined : { ...compared, detail: true }
    },
    merge: (body, previous, query) => hook.merge(body, previous, query),
  }
}

/** Parameters taken with `detail=true` only, as the route's schema says them: their defaults in their descriptions. */
function detailedOnly(properties: Record<string, object>): Record<string, object> {
  return Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const { default: fallback, description, ...rest } = property as { default?: unknown; description?: string }
      const said = [description, fallback === undefined ? undefined : `default ${String(fallback)}`].filter(Boolean).join('; ')
      return [name, { ...rest, description: `With detail=true${said ? `: ${said}` : ''}` }]
    }),
  )
}

/**
 * The query of a route of two resources: which one answers, its planned (or parsed) query, and that query's
 * window, which the run stage reads off the query it is given (the lane, whether the window has settled).
 */
export interface Chosen {
  detail: boolean
  query: unknown
  window?: Window
}

const windowOf = (query: unknown): { window?: Window } => {
  const window = (query as { window?: Window } | undefined)?.window
  return window ? { window } : {}
}

/**
 * A route answered by `brief` (OpenPanel's question) or, with `detail=true`, by `detailed` (Quarry's): each
 * takes its own parameters, and one the other takes is a 400 naming it. Both must be questions of one
 * statement, with nothing run beside or after it.
 */
export function eitherByDetail(options: {
  name: string
  brief: Resource<unknown, unknown>
  detailed: Resource<unknown, unknown>
}): Resource<Chosen, Chosen> {
  const { name, brief, detailed } = options
  for (const resource of [brief, detailed]) {
    if (resource.settledCheck || resource.joins || resource.alongside || resource.follow || resource.stream)
      throw new Error(`${resource.name}: eitherByDetail takes resources of one statement`)
  }
  const pick = (query: Chosen) => (query.detail ? detailed : brief)
  const { properties: briefProperties, ...briefRest } = brief.schema as { properties: Record<string, object> }
  const { properties: detailedProperties } = detailed.schema as { properties: Record<string, object> }
  return {
    name,
    // For /openapi.json: every parameter of both, `detail` choosing which apply; one of the detailed answer's
    // alone has its default only there.
    schema: { ...briefRest, properties: { ...detailedOnly(detailedProperties), ...briefProperties, detail: detailProperty } },
    lane: brief.lane === detailed.lane ? brief.lane : undefined,
    parse(raw, scope) {
      // The resource whose parameters are checked: a `detail` that is not a boolean is reported with the brief one's issues.
      const asked = asksDetail(raw) ? detailed : brief
      const { detail, parsed } = parseDetail(raw, (rest) => asked.parse(rest, scope))
      return { detail, query: parsed }
    },
    plan(query) {
      const planned = pick(query).plan(query.query)
      return { detail: query.detail, query: planned, ...windowOf(planned) }
    },
    compile: (query) => pick(query).compile(query.query),
    shape: (rows, query, others) => pick(query).shape(rows, query.query, others),
  }
}
