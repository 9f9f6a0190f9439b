// Reference model of OpenPanel's shapes on the routes Quarry shares with it (docs/openpanel.md, "When shapes
// collide"; docs/definitions.md, "OpenPanel's shapes"): the weekly retention series read straight from the
// raw events, and OpenPanel's cohort rows, event names, property keys, property values and sessions shaped
// from the models of Quarry's own answers. Nothing shared with the gateway. Clarity over speed.
import {
  Invalid,
  answerBehaviour,
  answerPathsFlow,
  checkKnown,
  eventColumnFilters,
  filtersParam,
  stepMatches,
  windowOf,
  type BehaviourAnswer,
  type BehaviourRequest,
} from './behaviour'
import { answerDiscovery, type DiscoveryRequest } from './discovery'
import { percent2 } from './exact'
import { listSessions, normalize, type ModelAnswer, type ModelRequest } from './model'
import { floorToUnit, formatInstant, nextUnit } from './time'

const BAD = { status: 400, body: null }

/**
 * `/retention`: per Monday week (request timezone) holding an event of the window that the filters keep, its
 * visitors with such an event in the week and inside the window, and those of them with such an event in
 * the week after (after the window's end too). Weeks oldest first; the default window is 3m.
 */
export function weeklyRetention(req: Omit<BehaviourRequest, 'resource'>): BehaviourAnswer {
  try {
    checkKnown(req.query, [])
    const shared = eventColumnFilters(filtersParam(req.query))
    const { tz, w } = windowOf({ ...req, resource: 'retention', query: { range: '3m', ...req.query } })
    const active = new Map<number, Set<string>>()
    const weeksOf = new Map<string, Set<number>>()
    for (const e of req.events.map(normalize)) {
      if (e.t < w.start || !stepMatches({ name: '*', filters: [] }, shared, e)) continue
      const week = floorToUnit(tz, e.t, 'week')
      if (!weeksOf.has(e.profile_id)) weeksOf.set(e.profile_id, new Set())
      weeksOf.get(e.profile_id)?.add(week)
      if (e.t >= w.end) continue
      if (!active.has(week)) active.set(week, new Set())
      active.get(week)?.add(e.profile_id)
    }
    const body = [...active.keys()]
      .sort((a, b) => a - b)
      .map((week) => {
        const visitors = [...(active.get(week) as Set<string>)]
        const retained = visitors.filter((visitor) => weeksOf.get(visitor)?.has(nextUnit(tz, week, 'week'))).length
        return {
          date: formatInstant(tz, week),
          active_users: visitors.length,
          retained_users: retained,
          retention: percent2(retained, visitors.length),
        }
      })
    return { status: 200, body }
  } catch (error) {
    if (error instanceof Invalid) return BAD
    throw error
  }
}

interface ModelCohort {
  date: string
  size: number
  values: (number | null)[]
}

/** OpenPanel's `round(value, 2)`. */
const hundredths = (value: number) => Math.round(value * 100) / 100

/**
 * `/retention/cohort`: Quarry's cohort table with OpenPanel's defaults (week, on_or_after, 12 periods, 3m),
 * as OpenPanel's rows: the cohorts with visitors (a period not begun counts 0, shares are fractions), after a
 * `Weighted Average` row whose share of period k is Σ values_k / Σ size over the cohorts that have begun
 * period k, its size the mean cohort size and its values that size times the shares, rounded.
 */
export function retentionCohort(req: Omit<BehaviourRequest, 'resource'>): BehaviourAnswer {
  const query = { period: 'week', criteria: 'on_or_after', periods: '12', range: '3m', ...req.query }
  const table = answerBehaviour({ ...req, resource: 'retention', query })
  if (table.status !== 200) return table
  const cohorts = (table.body as { cohorts: ModelCohort[] }).cohorts.filter((cohort) => cohort.size > 0)
  if (cohorts.length === 0) return { status: 200, body: [] }
  const mean = Math.round(cohorts.reduce((sum, cohort) => sum + cohort.size, 0) / cohorts.length)
  const shares = cohorts[0].values.map((_, k) => {
    let size = 0
    let retained = 0
    for (const cohort of cohorts) {
      if (cohort.values[k] === null) continue
      size += cohort.size
      retained += cohort.values[k] as number
    }
    return size > 0 ? retained / size : 0
  })
  const average = {
    cohort_interval: 'Weighted Average',
    sum: mean,
    values: shares.map((share) => Math.round(share * mean)),
    percentages: shares.map(hundredths),
  }
  const rows = cohorts.map((cohort) => {
    const values = cohort.values.map((value) => value ?? 0)
    return { cohort_interval: cohort.date, sum: cohort.size, values, percentages: values.map((value) => hundredths(value / cohort.size)) }
  })
  return { status: 200, body: [average, ...rows] }
}

/** The columns OpenPanel's `/events/properties` lists: what an event is filtered by, written out. */
export const EVENT_COLUMNS = [
  'path',
  'origin',
  'title',
  'referrer',
  'referrer_name',
  'referrer_type',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'country',
  'region',
  'city',
  'device',
  'brand',
  'model',
  'browser',
  'browser_version',
  'os',
  'os_version',
]

/** How many rows OpenPanel's lists hold: names, keys (per event name) and values. */
const OPENPANEL_LIMITS: Record<DiscoveryRequest['resource'], number> = { names: 50, properties: 500, property_values: 200 }

/** OpenPanel's names of `event` and `key`. */
const THEIRS: Record<string, string> = { eventName: 'event', propertyKey: 'key' }

/**
 * The discovery routes in OpenPanel's shapes (or Quarry's rows with `detail=true`): OpenPanel's names are
 * Quarry's, both given must be equal, and a route takes only those of the parameters it takes. OpenPanel's
 * shape has OpenPanel's defaults, and its key list a row per key and event name, in key order.
 */
export function discoveryShape(req: DiscoveryRequest): ModelAnswer {
  const { detail, ...rest } = req.query
  if (detail !== undefined && detail !== 'true' && detail !== 'false') return { ...BAD, next: false }
  const query: Record<string, string> = { ...rest }
  for (const [theirs, ours] of Object.entries(THEIRS)) {
    if (query[theirs] === undefined) continue
    if (req.resource === 'names' || (req.resource === 'properties' && theirs === 'propertyKey')) return { ...BAD, next: false }
    if (query[ours] !== undefined && query[ours] !== query[theirs]) return { ...BAD, next: false }
    query[ours] = query[theirs]
    delete query[theirs]
  }
  if (detail === 'true') return answerDiscovery({ ...req, query })
  // OpenPanel's defaults: every day since 1970-01-01 (the request's timezone), and its lists' lengths.
  const defaults = {
    limit: String(OPENPANEL_LIMITS[req.resource]),
    ...((query.startDate ?? query.range) ? {} : { startDate: '1970-01-01' }),
  }
  const answer = answerDiscovery({ ...req, query: { ...defaults, ...query }, pairs: req.resource === 'properties' })
  if (answer.status !== 200) return answer
  const rows = answer.body as Record<string, unknown>[]
  const bareKey = (key: string) => (key.startsWith('properties.') ? key.slice('properties.'.length) : key)
  switch (req.resource) {
    case 'names':
      return { ...answer, body: rows.map((row) => row.name) }
    case 'properties':
      return { ...answer, body: { columns: EVENT_COLUMNS, properties: rows } }
    default:
      return {
        ...answer,
        body: {
          event: query.event ?? null,
          property: bareKey(query.key),
          values: rows.map((row) => row.value),
          counts: rows.map((row) => row.count),
        },
      }
  }
}

/** `/sessions` in OpenPanel's shape: the first `limit` (default 20) of the window's sessions under OpenPanel's names. */
export function sessionsShape(req: Omit<ModelRequest, 'resource'>): Record<string, unknown>[] | null {
  const listed = listSessions(req)
  if (listed === null) return null
  return listed.slice(0, Number(req.query.limit ?? 20)).map((s) => ({
    id: s.id,
    profile_id: s.profileId,
    event_count: s.events,
    screen_view_count: s.screenViews,
    entry_origin: s.entryOrigin,
    entry_path: s.entryPath,
    exit_origin: s.exitOrigin,
    exit_path: s.exitPath,
    created_at: s.startedAt,
    ended_at: s.endedAt,
    duration: Math.round(s.duration * 1000),
    is_bounce: s.bounce,
    referrer: s.referrer,
    referrer_name: s.referrerName,
    referrer_type: s.referrerType,
    utm_source: s.utmSource,
    utm_medium: s.utmMedium,
    utm_campaign: s.utmCampaign,
    utm_term: s.utmTerm,
    utm_content: s.utmContent,
    country: s.country,
    region: s.region,
    city: s.city,
    device: s.device,
    browser: s.browser,
    os: s.os,
  }))
}

interface ModelPaths {
  sessions: number
  steps: { step: number; nodes: { label: string; sessions: number; exits: number }[] }[]
  links: { step: number; source: string; target: string; sessions: number }[]
}

const flowName = (value: unknown) => typeof value === 'string' && value.length >= 1 && value.length <= 200

/** A name list of `include` or `exclude`: one name or the parameter repeated; null when it is not one. */
function flowNames(value: string | string[] | undefined): string[] | undefined | null {
  if (value === undefined) return undefined
  const names = Array.isArray(value) ? value : [value]
  return names.length <= 100 && names.every(flowName) ? names : null
}

/**
 * `/user_flow`: Quarry's paths over event names around each session's first `startEvent`, as OpenPanel's
 * sankey: a node `<label>::step<k>` per label and step (value, percentage of the flows, exits) and a link
 * per pair of consecutive steps. `mode`: after (from startEvent), before (up to it, the last `steps`),
 * between (from it to the first `endEvent` after it); `include` and `exclude` narrow the events read.
 */
export function userFlow(req: Omit<BehaviourRequest, 'resource'>): BehaviourAnswer {
  const { startEvent, mode = 'after', endEvent, include, exclude, ...rest } = req.query
  if (!flowName(startEvent)) return BAD
  if (mode !== 'after' && mode !== 'before' && mode !== 'between') return BAD
  if ((mode === 'between') !== (endEvent !== undefined) || (endEvent !== undefined && !flowName(endEvent))) return BAD
  const [kept, dropped] = [flowNames(include), flowNames(exclude)]
  if (kept === null || dropped === null || dropped?.some((name) => name === startEvent || name === endEvent)) return BAD
  if (['node', 'start'].some((name) => rest[name] !== undefined)) return BAD
  const flow = {
    mode,
    ...(typeof endEvent === 'string' ? { end: endEvent } : {}),
    ...(kept ? { include: kept } : {}),
    ...(dropped ? { exclude: dropped } : {}),
  } as const
  const answer = answerPathsFlow({ ...req, query: { ...rest, node: 'event', start: startEvent as string } }, flow)
  if (answer.status !== 200) return answer
  const body = answer.body as ModelPaths
  const nodes = body.steps.flatMap((step) =>
    step.nodes.map((node) => ({
      id: `${node.label}::step${step.step}`,
      label: node.label,
      step: step.step,
      value: node.sessions,
      percentage: body.sessions ? percent2(node.sessions, body.sessions) : 0,
      exits: node.exits,
    })),
  )
  const links = body.links.map((link) => ({
    source: `${link.source}::step${link.step}`,
    target: `${link.target}::step${link.step + 1}`,
    value: link.sessions,
  }))
  return {
    status: 200,
    body: {
      mode,
      startEvent,
      ...(endEvent !== undefined ? { endEvent } : {}),
      sessions: body.sessions,
      node_count: nodes.length,
      link_count: links.length,
      nodes,
      links,
    },
  }
}
