// `GET /insights/:projectId/traffic/{referrers,geo,devices}` (OpenPanel's): one breakdown of the session
// attributes its `breakdown` names, answered by that breakdown's resource, as a bare array of its rows
// (compared as that breakdown compares).
import { QueryError, invalid } from '../core/errors'
import type { Resource } from '../core/pipeline'
import type { Dimension } from '../core/registry'
import { compileSchema, schemaIssues } from '../core/validate'
import { dimensions } from '../insights/dimensions'
import { openpanelDateProperties, withOpenPanelWindow } from './adapt'

/** OpenPanel's traffic routes: the breakdowns each offers, the first being its default. */
export const TRAFFIC_BREAKDOWNS = {
  referrers: ['referrer_name', 'referrer_type', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign'],
  geo: ['country', 'region', 'city'],
  devices: ['device', 'browser', 'os'],
} as const satisfies Record<string, readonly Dimension[]>
export type TrafficRoute = keyof typeof TRAFFIC_BREAKDOWNS

/** OpenPanel answers every row (at most 1,000); so does a request without `limit`. */
export const TRAFFIC_DEFAULT_LIMIT = 1000

type Breakdown = (typeof dimensions)[number]
type BreakdownQuery = Parameters<Breakdown['plan']>[0]
type PlannedBreakdown = ReturnType<Breakdown['plan']>
/** The query of the breakdown resource that answers it, with that resource's name. */
type TrafficQuery<Q> = Q & { breakdown: Dimension }

const resourceOf = (name: Dimension): Breakdown => dimensions.find((resource) => resource.name === name) as Breakdown

/** A breakdown's settled check: every breakdown is a session question (queries/sessions/source.ts). */
function settledCheckOf(resource: Breakdown): NonNullable<Breakdown['settledCheck']> {
  if (!resource.settledCheck) throw new Error(`breakdown ${resource.name} has no settled check`)
  return resource.settledCheck
}

/** A breakdown's compare hook: every breakdown compares (queries/insights/insight-compare.ts). */
function compareOf(resource: Breakdown): NonNullable<Breakdown['compare']> {
  if (!resource.compare) throw new Error(`breakdown ${resource.name} does not compare`)
  return resource.compare
}

function trafficResource(route: TrafficRoute): Resource<TrafficQuery<BreakdownQuery>, TrafficQuery<PlannedBreakdown>> {
  const breakdowns = TRAFFIC_BREAKDOWNS[route]
  const breakdownProperty = { type: 'string', enum: breakdowns, default: breakdowns[0] }
  const validator = compileSchema({ type: 'object', properties: { breakdown: breakdownProperty } })
  const first = resourceOf(breakdowns[0])
  const baseSchema = first.schema as { properties: Record<string, object> }
  const limit = { ...baseSchema.properties.limit, default: TRAFFIC_DEFAULT_LIMIT }
  return {
    name: `openpanel.traffic.${route}`,
    schema: { ...baseSchema, properties: { ...baseSchema.properties, ...openpanelDateProperties, limit, breakdown: breakdownProperty } },
    lane: first.lane,
    parse(raw, scope) {
      const { breakdown: asked, ...rest } = raw
      const own: Record<string, unknown> = asked === undefined ? {} : { breakdown: asked }
      const issues = schemaIssues(validator, own)
      const breakdown = (own.breakdown ?? breakdowns[0]) as Dimension
      const base = { limit: String(TRAFFIC_DEFAULT_LIMIT), ...withOpenPanelWindow(rest, scope) }
      try {
        const parsed = resourceOf(issues.length ? breakdowns[0] : breakdown).parse(base, scope)
        if (!issues.length) return { ...parsed, breakdown }
      } catch (error) {
        if (!(error instanceof QueryError) || error.code !== 'invalid_request') throw error
        issues.push(...error.issues)
      }
      throw invalid(issues)
    },
    plan: (query) => ({ ...resourceOf(query.breakdown).plan(query), breakdown: query.breakdown }),
    settledCheck: (query) => settledCheckOf(resourceOf(query.breakdown))(query),
    compile: (query, settled) => resourceOf(query.breakdown).compile(query, settled),
    shape: (rows, query) => resourceOf(query.breakdown).shape(rows as Parameters<Breakdown['shape']>[0], query),
    compare: {
      asked: (query) => compareOf(resourceOf(query.breakdown)).asked(query),
      question({ parsed, ...options }) {
        const compared = compareOf(resourceOf(parsed.breakdown)).question({ parsed, ...options })
        return compared && { ...compared, breakdown: parsed.breakdown }
      },
      merge: (body, previous, query) => compareOf(resourceOf(query.breakdown)).merge(body, previous, query),
    },
  }
}

export const trafficRoutes = (Object.keys(TRAFFIC_BREAKDOWNS) as TrafficRoute[]).map((route) => ({
  route,
  resource: trafficResource(route),
}))
