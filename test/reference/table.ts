// Reference model of `GET /insights/:projectId/table`, in plain TypeScript over raw events, independent of the
// gateway's SQL: the window's sessions kept by the filters (flat or a tree), grouped by the tuple of their
// dimension values, each group's metrics rounded as the breakdowns round them, ordered by one metric (as
// shown) then the dimension values ascending with empty values (null) last, paged by limit and cursor.
import { DIMENSIONS } from '../../queries/core/registry'
import { compareBytes, meanSeconds2, percent2, ratioHalfUp2 } from './exact'
import { isTreeText, matchValue, parseFilterTree, parseFilters, treeSelects, type Filter, type TreeNode } from './filters'
import { buildSessions, eventField, normalize, resolveWindow, treeSubject, type Ev, type RawEvent, type Session } from './model'
import { isValidTimeZone } from './time'

export const TABLE_METRIC_NAMES = [
  'visitors',
  'sessions',
  'pageviews',
  'bounce_rate',
  'avg_session_duration',
  'views_per_session',
  'events',
  'revenue',
  'conversion_rate',
] as const
type Metric = (typeof TABLE_METRIC_NAMES)[number]

export const TABLE_DIMENSION_NAMES = [...Object.keys(DIMENSIONS), 'entry_path', 'exit_path']

export interface TableRequest {
  events: RawEvent[]
  projectTimezone: string
  /** The URL query, as strings (`dimensions` and `metrics` comma lists). */
  query: Record<string, string>
  now: Date
}

export interface TableAnswer {
  status: number
  body: Record<string, string | number | null>[] | null
  next: boolean
}

const BAD: TableAnswer = { status: 400, body: null, next: false }
const ALLOWED = ['startDate', 'endDate', 'range', 'timezone', 'filters', 'limit', 'cursor', 'dimensions', 'metrics', 'goal', 'orderBy']

/** A session's value of a dimension: a first-event attribute, the entry path, or its last page view's path. */
function dimensionValue(s: Session, name: string): string {
  if (name === 'entry_path') return s.first.cols.path
  if (name === 'exit_path') return s.exit ? s.exit.cols.path : ''
  return s.first.cols[name as keyof Ev['cols']]
}

interface Kept {
  sessions: Session[]
  /** Page views counted per session: under flat event filters, those matching the filters other than `name`. */
  countedViews(s: Session): number
}

/** The window's sessions kept by the filters (flat: attributes and one matching event; a tree: it selects). */
function keptSessions(sessions: Session[], filters: Filter[], tree: TreeNode | undefined): Kept {
  const sessionFilters = filters.filter((f) => f.kind === 'session')
  const eventFilters = filters.filter((f) => f.kind === 'event')
  const viewFilters = eventFilters.filter((f) => f.name !== 'name')
  const matches = (e: Ev, list: Filter[]) => list.every((f) => matchValue(f, eventField(e, f.name)))
  const kept = sessions.filter((s) => {
    if (tree && !treeSelects(tree, treeSubject(s))) return false
    if (!sessionFilters.every((f) => matchValue(f, treeSubject(s).attribute(f.name)))) return false
    return eventFilters.length === 0 || s.events.some((e) => matches(e, eventFilters))
  })
  return { sessions: kept, countedViews: (s) => s.pageViews.filter((e) => matches(e, viewFilters)).length }
}

function metricsOf(group: Session[], kept: Kept, goal: TreeNode | undefined): Record<Metric, number> {
  const n = group.length
  const visitors = new Set(group.map((s) => s.first.profile_id))
  const converted = new Set(group.filter((s) => goal && treeSelects(goal, treeSubject(s))).map((s) => s.first.profile_id))
  const views = group.reduce((sum, s) => sum + kept.countedViews(s), 0)
  return {
    visitors: visitors.size,
    sessions: n,
    pageviews: views,
    bounce_rate: percent2(group.filter((s) => s.bounce).length, n),
    avg_session_duration: meanSeconds2(
      group.reduce((sum, s) => sum + s.durationMs, 0),
      n,
    ),
    views_per_session: ratioHalfUp2(BigInt(views), BigInt(n)),
    events: group.reduce((sum, s) => sum + s.events.length, 0),
    revenue: group.reduce((sum, s) => sum + s.events.reduce((total, e) => total + e.revenue, 0), 0),
    conversion_rate: percent2(converted.size, visitors.size),
  }
}

/** A comma list of distinct known names, 1 to `max`; null when it is not. */
function names(text: string | undefined, known: readonly string[], max: number): string[] | null {
  if (text === undefined) return null
  const list = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
  if (list.length < 1 || list.length > max || new Set(list).size !== list.length) return null
  return list.every((item) => known.includes(item)) ? list : null
}

function positiveInteger(text: string | undefined, fallback: number): number | null {
  if (text === undefined) return fallback
  return /^[0-9]+$/.test(text) && Number(text) >= 1 ? Number(text) : null
}

/** The answer of `/table` for one project's raw events. */
export function answerTable(req: TableRequest): TableAnswer {
  const { query } = req
  if (Object.keys(query).some((key) => !ALLOWED.includes(key))) return BAD
  const tz = query.timezone ?? req.projectTimezone
  if (!isValidTimeZone(tz)) return BAD
  const window = resolveWindow(query, tz, req.now.getTime())
  const dimensions = names(query.dimensions, TABLE_DIMENSION_NAMES, 3)
  const metrics = names(query.metrics, TABLE_METRIC_NAMES, 8) as Metric[] | null
  const limit = positiveInteger(query.limit, 100)
  const cursor = positiveInteger(query.cursor, 1)
  if (!window || !dimensions || !metrics || limit === null || limit > 1000 || cursor === null) return BAD
  if ((cursor - 1) * limit > 100_000) return BAD
  const tree = query.filters !== undefined && isTreeText(query.filters) ? parseFilterTree(query.filters) : undefined
  const filters = query.filters === undefined || tree !== undefined ? [] : parseFilters(query.filters)
  if (tree === null || filters === null) return BAD
  const converts = metrics.includes('conversion_rate')
  if (converts !== (query.goal !== undefined)) return BAD
  const goal = query.goal === undefined ? undefined : parseFilterTree(query.goal)
  if (goal === null || (goal && goal.op !== 'performed')) return BAD
  const [orderMetric, direction] = (query.orderBy ?? `${metrics[0]}:desc`).split(':')
  if (!metrics.includes(orderMetric as Metric) || (direction !== 'desc' && direction !== 'asc')) return BAD

  const inWindow = [...buildSessions(req.events.map(normalize)).values()].filter((s) => s.start >= window.start && s.start < window.end)
  const kept = keptSessions(inWindow, filters, tree)
  const groups = new Map<string, { values: string[]; sessions: Session[] }>()
  for (const s of kept.sessions) {
    const values = dimensions.map((name) => dimensionValue(s, name))
    const key = JSON.stringify(values)
    const group = groups.get(key)
    if (group) group.sessions.push(s)
    else groups.set(key, { values, sessions: [s] })
  }
  const rows = [...groups.values()].map((group) => ({ values: group.values, figures: metricsOf(group.sessions, kept, goal) }))
  const byValues = (a: string[], b: string[]) => {
    for (let i = 0; i < a.length; i += 1) {
      if (a[i] === b[i]) continue
      if (a[i] === '' || b[i] === '') return a[i] === '' ? 1 : -1
      return compareBytes(a[i], b[i])
    }
    return 0
  }
  const sign = direction === 'desc' ? -1 : 1
  rows.sort((a, b) => sign * (a.figures[orderMetric as Metric] - b.figures[orderMetric as Metric]) || byValues(a.values, b.values))
  const from = (cursor - 1) * limit
  const body = rows.slice(from, from + limit).map((row) => {
    const answer: Record<string, string | number | null> = {}
    dimensions.forEach((name, index) => {
      answer[name] = row.values[index] === '' ? null : row.values[index]
    })
    for (const metric of metrics) answer[metric] = row.figures[metric]
    return answer
  })
  return { status: 200, body, next: rows.length > from + limit }
}
