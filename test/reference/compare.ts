// Reference model of `compare=previous|year` (docs/definitions.md, "Compared with before"): the compared
// window, `change`, and the compared answer of every route that takes `compare`, found by asking the other
// reference models the same question over the compared window and joining the rows by their key.

import { answerBehaviour } from './behaviour'
import { answerDiscovery } from './discovery'
import { answerInsights, defaultInterval, type ModelAnswer, type RawEvent, resolveWindow, type Window, withOpenPanelWindow } from './model'
import { answerTable } from './table'
import { isValidTimeZone, localWall, offsetAt, wallToInstant, wallToMs } from './time'

export const COMPARE_MODES = ['previous', 'year'] as const
export type CompareMode = (typeof COMPARE_MODES)[number]

/** Fields whose change is a difference in points; every other numeric field changes by a percentage. */
export const RATE_FIELDS: ReadonlySet<string> = new Set([
  'bounce_rate',
  'exit_rate',
  'conversion_rate',
  'conversionRateFromStart',
  'overallConversionRate',
  'dropoffPercent',
])

type Figure = number | null
type Row = Record<string, unknown>

// ---------------------------------------------------------------------------------------------------
// The compared window

/**
 * The instant whose wall clock in `tz` reads one calendar year before that of `t` (29 February -> 28). A
 * wall time that happens twice is the earlier; one that never happens (clocks turned forward over it) is
 * read with the offset before the change, so it moves forward by the gap (02:30 in a skipped hour is 03:30),
 * as RFC 5545 and most date libraries read it.
 */
function yearBefore(tz: string, t: number): number {
  const now = localWall(tz, t)
  const wall = { ...now, y: now.y - 1, d: now.m === 2 && now.d === 29 ? 28 : now.d }
  const placed = wallToInstant(tz, wall)
  if (wallToMs(localWall(tz, placed)) === wallToMs(wall)) return placed
  return wallToMs(wall) - offsetAt(tz, placed - 1)
}

export function comparedWindow(mode: CompareMode, w: Window, tz: string): Window {
  if (mode === 'previous') return { start: w.start - (w.end - w.start), end: w.start }
  return { start: yearBefore(tz, w.start), end: yearBefore(tz, w.end) }
}

// ---------------------------------------------------------------------------------------------------
// change

/** A value as answered (at most 2 decimals) in exact hundredths. */
const hundredths = (x: number): bigint => BigInt(Math.round(x * 100))

/** num / den (den > 0) rounded to a whole number, half away from zero. */
function divideHalfAway(num: bigint, den: bigint): bigint {
  const magnitude = (2n * (num < 0n ? -num : num) + den) / (2n * den)
  return num < 0n ? -magnitude : magnitude
}

/**
 * The change of one field from `before` to `now`, computed exactly on the values as answered: a rate's
 * difference in points, any other field's percentage of `before`, rounded to 2 decimals half away from
 * zero. null when either value is null, and for a percentage when `before` is 0.
 */
export function changeOf(field: string, now: Figure, before: Figure): Figure {
  if (now === null || before === null) return null
  const n = hundredths(now)
  const b = hundredths(before)
  if (RATE_FIELDS.has(field)) return Number(n - b) / 100
  if (b === 0n) return null
  const result = Number(divideHalfAway(10_000n * (n - b), b)) / 100
  return result === 0 ? 0 : result
}

/** `{ field: changeOf(field, ...) }` over `fields`. */
export function changesOf(fields: readonly string[], now: Row, before: Row): Record<string, Figure> {
  return Object.fromEntries(fields.map((field) => [field, changeOf(field, now[field] as Figure, (before[field] ?? null) as Figure)]))
}

const pick = (fields: readonly string[], row: Row): Record<string, unknown> =>
  Object.fromEntries(fields.map((field) => [field, row[field]]))

/**
 * Each row of `now` with `previous` (its key's `fields` in `before`, or null when `before` has no row of
 * that key) and `change` (per field; every field null with a null `previous`).
 */
export function withPrevious<T extends Row>(options: {
  now: T[]
  before: T[]
  keyOf: (row: T) => string
  fields: readonly string[]
}): (T & { previous: Record<string, unknown> | null; change: Record<string, Figure> })[] {
  const before = new Map(options.before.map((row) => [options.keyOf(row), row]))
  return options.now.map((row) => {
    const then = before.get(options.keyOf(row))
    return { ...row, previous: then === undefined ? null : pick(options.fields, then), change: changesOf(options.fields, row, then ?? {}) }
  })
}

// ---------------------------------------------------------------------------------------------------
// Compared answers of the routes

export interface ComparedRequest {
  events: RawEvent[]
  projectTimezone: string
  /** `metrics`, `pages`, `pages/entry_exit`, a breakdown, `events/names`, `funnel` or `table`. */
  resource: string
  /** The URL query, `compare` included; a repeated parameter is a list. */
  query: Record<string, string | string[]>
  now: Date
}

const METRIC_FIELDS = [
  'bounce_rate',
  'unique_visitors',
  'total_sessions',
  'avg_session_duration',
  'total_screen_views',
  'views_per_session',
  'total_revenue',
]
const FUNNEL_STEP_FIELDS = ['users', 'conversionRateFromStart', 'dropoffPercent']
const FUNNEL_FIELDS = ['totalUsers', 'completedUsers', 'overallConversionRate']

/** A list's row key and numeric fields. */
function listShape(resource: string, query: Record<string, string | string[]>): { keyOf: (row: Row) => string; fields: string[] } {
  const page = (row: Row) => JSON.stringify([row.origin, row.path])
  if (resource === 'pages') return { keyOf: page, fields: ['sessions', 'pageviews', 'bounce_rate', 'avg_duration'] }
  if (resource === 'pages/entry_exit') {
    const fields = ['sessions', 'bounce_rate', 'avg_session_duration']
    return { keyOf: page, fields: query.mode === 'exit' ? [...fields, 'exit_rate'] : fields }
  }
  if (resource === 'events/names') return { keyOf: (row) => JSON.stringify(row.name), fields: ['count'] }
  if (resource === 'table') {
    const dimensions = String(query.dimensions).split(',')
    return { keyOf: (row) => JSON.stringify(dimensions.map((name) => row[name])), fields: String(query.metrics).split(',') }
  }
  return {
    keyOf: (row) => JSON.stringify([row.prefix ?? null, row.name]),
    fields: ['sessions', 'pageviews', 'bounce_rate', 'avg_session_duration'],
  }
}

/** The plain (uncompared) answer of the reference models. */
function ask(req: ComparedRequest, query: Record<string, string | string[]>): ModelAnswer {
  const common = { events: req.events, projectTimezone: req.projectTimezone, now: req.now }
  if (req.resource === 'funnel') return { ...answerBehaviour({ ...common, resource: 'funnel', query }), next: false }
  const plain = query as Record<string, string>
  if (req.resource === 'events/names') return answerDiscovery({ ...common, resource: 'names', query: plain })
  if (req.resource === 'table') return answerTable({ ...common, query: plain }) as ModelAnswer
  return answerInsights({ ...common, resource: req.resource, query: plain })
}

/** Every row of a list over all its pages. */
function allRows(req: ComparedRequest, query: Record<string, string | string[]>): Row[] {
  const rows: Row[] = []
  for (let cursor = 1; ; cursor += 1) {
    const answer = ask(req, { ...query, limit: '1000', cursor: String(cursor) })
    if (answer.status !== 200) throw new Error(`the compared question failed: ${JSON.stringify(query)}`)
    rows.push(...(answer.body as Row[]))
    if (!answer.next) return rows
  }
}

const without = (query: Record<string, string | string[]>, keys: string[]) =>
  Object.fromEntries(Object.entries(query).filter(([key]) => !keys.includes(key)))

/**
 * The answer with `compare`: the plain answer, then the same question over the compared window (same
 * filters and parameters; a list's paging, order and search only pick the rows that get a `previous`).
 */
export function answerCompared(req: ComparedRequest): ModelAnswer {
  const mode = req.query.compare
  const query = without(req.query, ['compare'])
  const main = ask(req, query)
  if (main.status !== 200) return main
  if (!(COMPARE_MODES as readonly unknown[]).includes(mode)) return { status: 400, body: null, next: false }

  const zone = query.timezone
  const tz = typeof zone === 'string' && isValidTimeZone(zone) ? zone : req.projectTimezone
  const asked = Object.fromEntries(['startDate', 'endDate', 'range'].filter((key) => key in query).map((key) => [key, String(query[key])]))
  // OpenPanel's entry and exit pages default to OpenPanel's window.
  const dates = req.resource === 'pages/entry_exit' ? withOpenPanelWindow(asked, tz, req.now.getTime()) : asked
  const window = resolveWindow(dates, tz, req.now.getTime()) as Window
  const compared = comparedWindow(mode as CompareMode, window, tz)
  const then = {
    ...without(query, ['range', 'startDate', 'endDate', 'limit', 'cursor', 'search', 'sortBy', 'sortOrder', 'breakdown', 'breakdownLimit']),
    startDate: new Date(compared.start).toISOString(),
    endDate: new Date(compared.end).toISOString(),
  }

  if (req.resource === 'metrics') {
    const now = main.body as { metrics: Row; series: Row[] }
    const before = ask(req, { ...then, interval: String(query.interval ?? defaultInterval(window)) }).body as typeof now
    const body = {
      ...now,
      previous: before.metrics,
      change: changesOf(METRIC_FIELDS, now.metrics, before.metrics),
      series: now.series.map((bucket, i) => {
        const old = before.series[i]
        return { ...bucket, previous: old ?? null, change: changesOf(METRIC_FIELDS, bucket, old ?? {}) }
      }),
    }
    return { ...main, body }
  }
  if (req.resource === 'funnel') {
    const now = main.body as Row & { steps: Row[] }
    const before = ask(req, then).body as typeof now
    const body = {
      ...now,
      previous: { ...pick(['steps', ...FUNNEL_FIELDS], before) },
      change: {
        steps: now.steps.map((step, i) => ({ step: step.step, ...changesOf(FUNNEL_STEP_FIELDS, step, before.steps[i]) })),
        ...changesOf(FUNNEL_FIELDS, now, before),
      },
    }
    return { ...main, body }
  }
  const shape = listShape(req.resource, query)
  return { ...main, body: withPrevious({ now: main.body as Row[], before: allRows(req, then), ...shape }) }
}
