// OpenPanel's analytics routes as adapters (docs/openpanel.md, "Analytics routes"): each maps OpenPanel's
// parameters onto a Quarry resource and reshapes its answer, so every number keeps one definition.
import { DateTime } from 'luxon'
import { RANGES, isValidTimezone } from '../core/dates'
import type { CompareHook } from '../core/compare'
import { QueryError, invalid, type Issue } from '../core/errors'
import type { Answer, Resource, Row, Scope } from '../core/pipeline'
import { compileSchema, schemaIssues } from '../core/validate'

/** Days before today that OpenPanel's analytics routes start at when a request names no dates (its `resolveDateRange`). */
export const OPENPANEL_DEFAULT_DAYS = 30

/** OpenPanel's date parameters: `range` has no default there, the window then being the default days. */
export const openpanelDateProperties = {
  startDate: { type: 'string' },
  endDate: { type: 'string' },
  range: { type: 'string', enum: RANGES },
}

/**
 * The date parameters a base resource reads: those given, or, with neither `startDate` nor `range`, the
 * local day `OPENPANEL_DEFAULT_DAYS` before today as `startDate` (with `endDate` if one is given).
 */
export function withOpenPanelWindow(raw: Record<string, unknown>, scope: Scope): Record<string, unknown> {
  if (raw.startDate !== undefined || raw.range !== undefined) return raw
  const zone = typeof raw.timezone === 'string' && isValidTimezone(raw.timezone) ? raw.timezone : scope.project.timezone
  const today = DateTime.fromJSDate(scope.now, { zone })
  return { ...raw, startDate: today.minus({ days: OPENPANEL_DEFAULT_DAYS }).toISODate() }
}

/** An OpenPanel route over a Quarry resource: its own parameters, how they map onto the base's, and its shape. */
export interface Adaptation<Planned, Parsed = unknown> {
  /** The route's resource name. */
  name: string
  /** OpenPanel's parameters of the route (with their defaults), checked here; every other one goes to the base. */
  own: Record<string, object>
  /** The base's parameters the route takes beside its own (all of them when not given). */
  passes?: readonly string[]
  /** The base's query string from the request's (own parameters checked and defaulted). */
  toBase(own: Record<string, unknown>, rest: Record<string, unknown>, scope: Scope): Record<string, unknown>
  reshape(answer: Answer, query: Planned): Answer
  /**
   * How the route compares (`compare`), its merge given the reshaped bodies; without it the route does not
   * take `compare`, whatever its base does.
   */
  compare?: CompareHook<Parsed, Planned>
}

/**
 * `base` answering an OpenPanel route: one 400 lists the problems of the own parameters and of the base's;
 * the statements, caps and cache are the base's. A base that answers with others' requests (`joins`) is
 * asked alone: its members are told apart by resource name.
 */
export function adapt<Parsed, Planned, Returned extends Row>(
  base: Resource<Parsed, Planned, Returned>,
  adaptation: Adaptation<Planned, Parsed>,
): Resource<Parsed, Planned, Returned> {
  const baseSchema = base.schema as { properties: Record<string, object> }
  const offered = adaptation.passes ?? Object.keys(baseSchema.properties)
  const passes = adaptation.compare ? offered : offered.filter((key) => key !== 'compare')
  const passed = Object.fromEntries(Object.entries(baseSchema.properties).filter(([key]) => passes.includes(key)))
  const validator = compileSchema({ type: 'object', properties: adaptation.own })
  const names = Object.keys(adaptation.own)
  return {
    ...base,
    joins: undefined,
    compare: adaptation.compare,
    name: adaptation.name,
    schema: { ...baseSchema, properties: { ...passed, ...adaptation.own } },
    parse(raw, scope) {
      const own = Object.fromEntries(Object.entries(raw).filter(([key, value]) => names.includes(key) && value !== undefined))
      const rest = Object.fromEntries(Object.entries(raw).filter(([key]) => !names.includes(key) && passes.includes(key)))
      const issues: Issue[] = schemaIssues(validator, own)
      for (const key of Object.keys(raw)) {
        if (!names.includes(key) && !passes.includes(key)) issues.push({ path: [key], message: `unknown parameter "${key}"` })
      }
      try {
        const parsed = base.parse(adaptation.toBase(own, rest, scope), scope)
        if (!issues.length) return parsed
      } catch (error) {
        if (!(error instanceof QueryError) || error.code !== 'invalid_request') throw error
        // A parameter refused here is refused once, whatever the base says of what it was mapped to.
        const refused = new Set(issues.map((issue) => String(issue.path[0])))
        issues.push(...error.issues.filter((issue) => !refused.has(String(issue.path[0]))))
      }
      throw invalid(issues)
    },
    shape: (rows, query, others) => adaptation.reshape(base.shape(rows, query, others), query),
  }
}
