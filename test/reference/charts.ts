// Reference model of `GET /export/charts` (docs/definitions.md, "Charts").
//
// Plain TypeScript over raw event rows. It shares no code with the gateway (nothing from server/ or
// queries/) and never touches ClickHouse. Clarity over speed.

import { compareBytes, parseStrictNumber } from './exact'
import { rowMatches, parseRowFilters } from './export'
import { SEGMENTS } from '../../queries/charts/chart-params'
import { type Filter, PROPERTY_PREFIX, SESSION_ATTRIBUTE_NAMES } from './filters'
import {
  compareEvents,
  defaultInterval,
  type Ev,
  eventField,
  INTERVALS,
  normalize,
  parseIntegerParam,
  type RawEvent,
  resolveWindow,
  type Window,
} from './model'
import { bucketStarts, floorToUnit, formatInstant, type Interval, isValidTimeZone, nextUnit } from './time'

// ---------------------------------------------------------------------------------------------------
// Public interface

export interface ChartModelRequest {
  /** One project's raw rows. */
  events: RawEvent[]
  projectTimezone: string
  /** The URL query, as strings. */
  query: Record<string, string>
  now: Date
}

export interface ChartModelAnswer {
  status: number
  body: unknown
}

export { SEGMENTS }
export type Segment = (typeof SEGMENTS)[number]
const PROPERTY_SEGMENTS: readonly Segment[] = ['property_sum', 'property_average', 'property_min', 'property_max']
const NUMERIC_COLUMNS = ['duration', 'revenue'] as const

const CHART_PARAMS = [
  'projectId',
  'series',
  'breakdowns',
  'breakdownLimit',
  'interval',
  'range',
  'startDate',
  'endDate',
  'timezone',
  'previous',
]

export const LETTERS = 'ABCDEFGHIJ'
export const MAX_SERIES = 10
export const MAX_BREAKDOWNS = 3
export const DEFAULT_BREAKDOWN_LIMIT = 10
export const MAX_BREAKDOWN_LIMIT = 100
export const BUCKET_CAP = 20_000

const BAD_REQUEST: ChartModelAnswer = { status: 400, body: null }

/** `sign(x) · floor(|x| · 100 + 0.5) / 100` (never -0). */
export function round2(x: number): number {
  const r = (Math.sign(x) * Math.floor(Math.abs(x) * 100 + 0.5)) / 100
  return r === 0 ? 0 : r
}

const round2OrNull = (x: number | null): number | null => (x === null ? null : round2(x))

// ---------------------------------------------------------------------------------------------------
// Parameters

interface EventItem {
  kind: 'event'
  letter: string
  name: string
  filters: Filter[]
  segment: Segment
  property?: string
  displayName?: string
}

type Expr =
  | { type: 'num'; value: number }
  | { type: 'ref'; letter: string }
  | { type: 'neg'; arg: Expr }
  | { type: 'bin'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr }

interface FormulaItem {
  kind: 'formula'
  letter: string
  formula: string
  expr: Expr
  displayName?: string
}

type Item = EventItem | FormulaItem

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/** `properties.<key>` with a non-empty key. */
function isPropertyName(name: string): boolean {
  return name.startsWith(PROPERTY_PREFIX) && name.length > PROPERTY_PREFIX.length
}

/** A `property` of the property segments: `properties.<key>`, `duration` or `revenue`. */
function isValidProperty(p: unknown): p is string {
  return typeof p === 'string' && (isPropertyName(p) || (NUMERIC_COLUMNS as readonly string[]).includes(p))
}

/** Breakdown names: name, path, origin, title, the session attributes except entry_*, properties.<key>. */
export function isValidBreakdownName(name: unknown): name is string {
  if (typeof name !== 'string') return false
  if (['name', 'path', 'origin', 'title'].includes(name)) return true
  if ((SESSION_ATTRIBUTE_NAMES as readonly string[]).includes(name)) return !name.startsWith('entry_')
  return isPropertyName(name)
}

/** An event item, or null when invalid (letters of formulas are checked later). */
function parseEventItem(raw: Record<string, unknown>, letter: string): EventItem | null {
  for (const key of Object.keys(raw)) {
    if (!['name', 'filters', 'segment', 'property', 'displayName'].includes(key)) return null
  }
  if (typeof raw.name !== 'string' || raw.name === '') return null

  let filters: Filter[] = []
  if (raw.filters !== undefined) {
    if (!Array.isArray(raw.filters)) return null
    const parsed = parseRowFilters(JSON.stringify(raw.filters))
    if (parsed === null) return null
    filters = parsed
  }

  let segment: Segment = 'event'
  if (raw.segment !== undefined) {
    if (typeof raw.segment !== 'string' || !(SEGMENTS as readonly string[]).includes(raw.segment)) return null
    segment = raw.segment as Segment
  }

  const needsProperty = PROPERTY_SEGMENTS.includes(segment)
  if (needsProperty) {
    if (!isValidProperty(raw.property)) return null
  } else if (raw.property !== undefined) return null

  if (raw.displayName !== undefined && typeof raw.displayName !== 'string') return null

  return {
    kind: 'event',
    letter,
    name: raw.name,
    filters,
    segment,
    property: needsProperty ? (raw.property as string) : undefined,
    displayName: raw.displayName as string | undefined,
  }
}

// Formula grammar:
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := number | letter | '(' expr ')'
//   number  := digits ('.' digits)?        letter := 'A'..'J'
// Spaces (U+0020) may appear between tokens. Anything else is invalid.

type Token = { t: 'num'; value: number } | { t: 'letter'; letter: string } | { t: 'op'; op: string }

function tokenize(text: string): Token[] | null {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === ' ') {
      i += 1
      continue
    }
    const num = /^[0-9]+(\.[0-9]+)?/.exec(text.slice(i))
    if (num) {
      tokens.push({ t: 'num', value: Number(num[0]) })
      i += num[0].length
      continue
    }
    if (c >= 'A' && c <= 'J') tokens.push({ t: 'letter', letter: c })
    else if ('+-*/()'.includes(c)) tokens.push({ t: 'op', op: c })
    else return null
    i += 1
  }
  return tokens
}

export function parseFormula(text: string): Expr | null {
  const tokenized = tokenize(text)
  if (tokenized === null) return null
  const tokens: Token[] = tokenized
  let pos = 0
  const peekOp = (): string | null => {
    const tk = tokens[pos]
    return tk !== undefined && tk.t === 'op' ? tk.op : null
  }

  function expr(): Expr | null {
    let left = term()
    while (left !== null && (peekOp() === '+' || peekOp() === '-')) {
      const op = peekOp() as '+' | '-'
      pos += 1
      const right = term()
      if (right === null) return null
      left = { type: 'bin', op, left, right }
    }
    return left
  }
  function term(): Expr | null {
    let left = unary()
    while (left !== null && (peekOp() === '*' || peekOp() === '/')) {
      const op = peekOp() as '*' | '/'
      pos += 1
      const right = unary()
      if (right === null) return null
      left = { type: 'bin', op, left, right }
    }
    return left
  }
  function unary(): Expr | null {
    if (peekOp() === '-') {
      pos += 1
      const arg = unary()
      return arg === null ? null : { type: 'neg', arg }
    }
    return primary()
  }
  function primary(): Expr | null {
    const tk = tokens[pos]
    if (tk === undefined) return null
    if (tk.t === 'num') {
      pos += 1
      return { type: 'num', value: tk.value }
    }
    if (tk.t === 'letter') {
      pos += 1
      return { type: 'ref', letter: tk.letter }
    }
    if (tk.op === '(') {
      pos += 1
      const inner = expr()
      if (inner === null || peekOp() !== ')') return null
      pos += 1
      return inner
    }
    return null
  }

  const e = expr()
  if (e === null || pos !== tokens.length) return null
  return e
}

function refsOf(e: Expr): string[] {
  switch (e.type) {
    case 'num':
      return []
    case 'ref':
      return [e.letter]
    case 'neg':
      return refsOf(e.arg)
    case 'bin':
      return [...refsOf(e.left), ...refsOf(e.right)]
  }
}

/** Evaluates on unrounded values; division by zero gives null, and null propagates. */
export function evaluate(e: Expr, value: (letter: string) => number | null): number | null {
  switch (e.type) {
    case 'num':
      return e.value
    case 'ref':
      return value(e.letter)
    case 'neg': {
      const a = evaluate(e.arg, value)
      return a === null ? null : -a
    }
    case 'bin': {
      const a = evaluate(e.left, value)
      const b = evaluate(e.right, value)
      if (a === null || b === null) return null
      switch (e.op) {
        case '+':
          return a + b
        case '-':
          return a - b
        case '*':
          return a * b
        case '/':
          return b === 0 ? null : a / b
      }
    }
  }
}

function parseFormulaItem(raw: Record<string, unknown>, letter: string): FormulaItem | null {
  for (const key of Object.keys(raw)) if (!['type', 'formula', 'displayName'].includes(key)) return null
  if (raw.type !== 'formula' || typeof raw.formula !== 'string') return null
  if (raw.displayName !== undefined && typeof raw.displayName !== 'string') return null
  const expr = parseFormula(raw.formula)
  if (expr === null) return null
  return { kind: 'formula', letter, formula: raw.formula, expr, displayName: raw.displayName as string | undefined }
}

/** `series`: a JSON array of 1..10 items; formula letters must name event items. null = 400. */
function parseSeries(text: string): Item[] | null {
  const parsed = parseJson(text)
  if (!parsed.ok || !Array.isArray(parsed.value)) return null
  const list = parsed.value
  if (list.length < 1 || list.length > MAX_SERIES) return null
  const items: Item[] = []
  for (let i = 0; i < list.length; i++) {
    const raw = list[i]
    if (!isPlainObject(raw)) return null
    const letter = LETTERS[i]
    // An item with a `type` key is a formula item (and `type` must be "formula").
    const item = Object.hasOwn(raw, 'type') ? parseFormulaItem(raw, letter) : parseEventItem(raw, letter)
    if (item === null) return null
    items.push(item)
  }
  for (const item of items) {
    if (item.kind !== 'formula') continue
    for (const letter of refsOf(item.expr)) {
      const target = items[LETTERS.indexOf(letter)]
      if (target === undefined || target.kind !== 'event') return null
    }
  }
  return items
}

/** `breakdowns`: a JSON array of at most 3 `{ name }`. null = 400. */
function parseBreakdowns(text: string): string[] | null {
  const parsed = parseJson(text)
  if (!parsed.ok || !Array.isArray(parsed.value)) return null
  if (parsed.value.length > MAX_BREAKDOWNS) return null
  const names: string[] = []
  for (const raw of parsed.value) {
    if (!isPlainObject(raw)) return null
    for (const key of Object.keys(raw)) if (key !== 'name') return null
    if (!isValidBreakdownName(raw.name)) return null
    names.push(raw.name)
  }
  return names
}

// ---------------------------------------------------------------------------------------------------
// Events and aggregates

/** A normalized event plus the columns only charts read. */
interface CEv {
  e: Ev
  duration: number
  revenue: number
  groups: string[]
}

function toChartEvent(raw: RawEvent): CEv {
  return { e: normalize(raw), duration: raw.duration ?? 0, revenue: raw.revenue ?? 0, groups: raw.groups ?? [] }
}

/** The numeric value of `property` on an event, or null when it is not a number. */
function propertyValue(ev: CEv, property: string): number | null {
  if (property === 'duration') return ev.duration
  if (property === 'revenue') return ev.revenue
  return parseStrictNumber(eventField(ev.e, property))
}

/** The segment's aggregate over a set of events (one bucket, or the whole window). Unrounded. */
function aggregate(events: CEv[], item: EventItem): number {
  switch (item.segment) {
    case 'event':
      return events.length
    case 'user':
    case 'one_event_per_user':
      return new Set(events.map((x) => x.e.profile_id)).size
    case 'session':
      return new Set(events.map((x) => x.e.session_id)).size
    case 'group':
      return new Set(events.flatMap((x) => x.groups)).size
    case 'user_average': {
      const users = new Set(events.map((x) => x.e.profile_id)).size
      return users === 0 ? 0 : events.length / users
    }
    case 'property_sum':
    case 'property_average':
    case 'property_min':
    case 'property_max': {
      const nums: number[] = []
      for (const x of events) {
        const v = propertyValue(x, item.property as string)
        if (v !== null) nums.push(v)
      }
      if (nums.length === 0) return 0
      let sum = 0
      let min = nums[0]
      let max = nums[0]
      for (const v of nums) {
        sum += v
        if (v < min) min = v
        if (v > max) max = v
      }
      if (item.segment === 'property_sum') return sum
      if (item.segment === 'property_average') return sum / nums.length
      if (item.segment === 'property_min') return min
      return max
    }
  }
}

/**
 * Per-bucket values of one series over the events of one window (already restricted to the item, the
 * group and the window; sorted by created_at, id). Buckets by the event's created_at; for
 * one_event_per_user, each user once, in the bucket of their first event of the set.
 */
function bucketValues(events: CEv[], item: EventItem, buckets: number[], tz: string, interval: Interval): number[] {
  const byBucket = new Map<number, CEv[]>(buckets.map((b) => [b, []]))
  if (item.segment === 'one_event_per_user') {
    const firstOf = new Map<string, CEv>()
    for (const x of events) if (!firstOf.has(x.e.profile_id)) firstOf.set(x.e.profile_id, x)
    const counts = new Map<number, number>(buckets.map((b) => [b, 0]))
    for (const x of firstOf.values()) {
      const b = floorToUnit(tz, x.e.t, interval)
      if (!counts.has(b)) throw new Error('reference charts: event outside the buckets')
      counts.set(b, (counts.get(b) as number) + 1)
    }
    return buckets.map((b) => counts.get(b) as number)
  }
  for (const x of events) {
    const list = byBucket.get(floorToUnit(tz, x.e.t, interval))
    if (!list) throw new Error('reference charts: event outside the buckets')
    list.push(x)
  }
  return buckets.map((b) => aggregate(byBucket.get(b) as CEv[], item))
}

// ---------------------------------------------------------------------------------------------------
// Response

interface PreviousOut {
  value: number | null
  diff: number | null
  state: 'positive' | 'negative' | 'neutral'
}

interface MetricsOut {
  sum: number | null
  average: number | null
  min: number | null
  max: number | null
  previous?: PreviousOut
}

interface SeriesOut {
  id: string
  names: string[]
  event: { id: string; name: string; breakdowns: Record<string, string> }
  metrics: MetricsOut
  data: Array<{ date: string; count: number | null; previous?: PreviousOut }>
}

/** Unrounded sum / mean / min / max of the non-null values; all null when there are none. */
function stats(values: Array<number | null>): { sum: number | null; average: number | null; min: number | null; max: number | null } {
  const present = values.filter((v): v is number => v !== null)
  if (present.length === 0) return { sum: null, average: null, min: null, max: null }
  let sum = 0
  let min = present[0]
  let max = present[0]
  for (const v of present) {
    sum += v
    if (v < min) min = v
    if (v > max) max = v
  }
  return { sum, average: sum / present.length, min, max }
}

export function previousOf(current: number | null, previous: number | null): PreviousOut {
  const diff = current === null || previous === null || previous === 0 ? null : round2(((current - previous) / previous) * 100)
  const state = diff === null ? 'neutral' : diff > 0 ? 'positive' : diff < 0 ? 'negative' : 'neutral'
  return { value: round2OrNull(previous), diff, state }
}

/** A kept group of an event item: its breakdown values and unrounded bucket values. */
interface KeptGroup {
  values: string[]
  current: number[]
  previous: number[] | null
}

/** Breakdown values in order, each compared bytewise. */
function compareValues(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareBytes(a[i], b[i])
    if (c !== 0) return c
  }
  return 0
}

/** One response series from its unrounded current values and (with previous=true) previous values. */
function seriesOut(
  head: Pick<SeriesOut, 'id' | 'names' | 'event'>,
  dates: string[],
  current: Array<number | null>,
  previous: Array<number | null> | null,
): { out: SeriesOut; sum: number | null } {
  const s = stats(current)
  const metrics: MetricsOut = {
    sum: round2OrNull(s.sum),
    average: round2OrNull(s.average),
    min: round2OrNull(s.min),
    max: round2OrNull(s.max),
  }
  if (previous !== null) metrics.previous = previousOf(s.sum, stats(previous).sum)
  const data = dates.map((date, i) => {
    const point: { date: string; count: number | null; previous?: PreviousOut } = { date, count: round2OrNull(current[i]) }
    if (previous !== null) point.previous = previousOf(current[i], i < previous.length ? previous[i] : 0)
    return point
  })
  return { out: { ...head, metrics, data }, sum: s.sum }
}

// ---------------------------------------------------------------------------------------------------
// Entry point

export function answerChart(req: ChartModelRequest): ChartModelAnswer {
  const { query } = req
  const now = req.now.getTime()

  for (const key of Object.keys(query)) if (!CHART_PARAMS.includes(key)) return BAD_REQUEST

  const tz = query.timezone ?? req.projectTimezone
  if (!isValidTimeZone(tz)) return BAD_REQUEST
  const window = resolveWindow({ ...query, range: query.range ?? '30d' }, tz, now)
  if (window === null) return BAD_REQUEST

  let interval: Interval = defaultInterval(window)
  if (query.interval !== undefined) {
    if (!(INTERVALS as readonly string[]).includes(query.interval)) return BAD_REQUEST
    interval = query.interval as Interval
  }

  if (query.series === undefined) return BAD_REQUEST
  const items = parseSeries(query.series)
  if (items === null) return BAD_REQUEST

  const breakdowns = query.breakdowns === undefined ? [] : parseBreakdowns(query.breakdowns)
  if (breakdowns === null) return BAD_REQUEST
  const hasBreakdowns = breakdowns.length > 0

  let breakdownLimit = DEFAULT_BREAKDOWN_LIMIT
  if (query.breakdownLimit !== undefined) {
    const n = parseIntegerParam(query.breakdownLimit)
    if (n === null || n < 1 || n > MAX_BREAKDOWN_LIMIT) return BAD_REQUEST
    breakdownLimit = n
  }

  let withPrevious = false
  if (query.previous !== undefined) {
    if (query.previous !== 'true' && query.previous !== 'false') return BAD_REQUEST
    withPrevious = query.previous === 'true'
  }

  // The cap: lines × buckets × (2 with previous) <= 20,000, where an item is one line without breakdowns;
  // with them an event item is up to breakdownLimit lines and a formula up to breakdownLimit per distinct
  // letter it names. Buckets are counted only up to the first one past the cap, so a huge window is refused
  // without listing it.
  const lineCount = items.reduce(
    (n, item) => n + (!hasBreakdowns ? 1 : item.kind === 'formula' ? new Set(refsOf(item.expr)).size * breakdownLimit : breakdownLimit),
    0,
  )
  const perBucket = lineCount * (withPrevious ? 2 : 1)
  const maxBuckets = Math.floor(BUCKET_CAP / perBucket)
  let bucketCount = 0
  for (let b = floorToUnit(tz, window.start, interval); b < window.end && bucketCount <= maxBuckets; b = nextUnit(tz, b, interval)) {
    bucketCount += 1
  }
  if (bucketCount > maxBuckets) return BAD_REQUEST
  const buckets = bucketStarts(tz, window.start, window.end, interval)

  const prevWindow: Window = { start: window.start - (window.end - window.start), end: window.start }
  const prevBuckets = bucketStarts(tz, prevWindow.start, prevWindow.end, interval)
  const dates = buckets.map((b) => formatInstant(tz, b))

  const events = req.events.map(toChartEvent).sort((a, b) => compareEvents(a.e, b.e))
  const inWindow = (x: CEv, w: Window): boolean => x.e.t >= w.start && x.e.t < w.end
  const itemEvents = (item: EventItem, w: Window): CEv[] =>
    events.filter((x) => inWindow(x, w) && (item.name === '*' || x.e.name === item.name) && rowMatches(x.e, item.filters))

  const out: SeriesOut[] = []
  const sums: Array<number | null> = []
  const allValues: Array<number | null> = []
  const push = (r: { out: SeriesOut; sum: number | null }, current: Array<number | null>): void => {
    out.push(r.out)
    sums.push(r.sum)
    allValues.push(...current)
  }

  // Every event item's kept groups first (formulas may name any event item, even a later one). Without
  // breakdowns an item has one group, with no values. Groups keep their rank order.
  const keptOf = new Map<string, KeptGroup[]>()
  for (const item of items) {
    if (item.kind !== 'event') continue
    if (!hasBreakdowns) {
      const current = bucketValues(itemEvents(item, window), item, buckets, tz, interval)
      const previous = withPrevious ? bucketValues(itemEvents(item, prevWindow), item, prevBuckets, tz, interval) : null
      keptOf.set(item.letter, [{ values: [], current, previous }])
      continue
    }
    // Groups of the item's events in the current window, ranked by the whole-window aggregate.
    const curEvents = itemEvents(item, window)
    const prevEvents = withPrevious ? itemEvents(item, prevWindow) : []
    const valuesOf = (x: CEv): string[] => breakdowns.map((name) => eventField(x.e, name))
    const groups = new Map<string, { values: string[]; events: CEv[] }>()
    for (const x of curEvents) {
      const values = valuesOf(x)
      const key = JSON.stringify(values)
      const g = groups.get(key)
      if (g) g.events.push(x)
      else groups.set(key, { values, events: [x] })
    }
    const ranked = [...groups.values()]
      .map((g) => ({ ...g, total: aggregate(g.events, item) }))
      .filter((g) => g.total !== 0)
      .sort((a, b) => (a.total !== b.total ? b.total - a.total : compareValues(a.values, b.values)))
      .slice(0, breakdownLimit)
    keptOf.set(
      item.letter,
      ranked.map((g) => {
        const key = JSON.stringify(g.values)
        const current = bucketValues(g.events, item, buckets, tz, interval)
        const previous = withPrevious
          ? bucketValues(
              prevEvents.filter((x) => JSON.stringify(valuesOf(x)) === key),
              item,
              prevBuckets,
              tz,
              interval,
            )
          : null
        return { values: g.values, current, previous }
      }),
    )
  }

  const headOf = (item: Item, name: string, values: string[], rank: number) => {
    const breakdownMap: Record<string, string> = {}
    breakdowns.forEach((breakdown, i) => {
      breakdownMap[breakdown] = values[i]
    })
    return {
      id: hasBreakdowns ? `${item.letter}-${rank}` : item.letter,
      names: [item.displayName ?? name, ...values],
      event: { id: item.letter, name, breakdowns: breakdownMap },
    }
  }

  for (const item of items) {
    if (item.kind === 'event') {
      ;(keptOf.get(item.letter) as KeptGroup[]).forEach((g, index) => {
        push(seriesOut(headOf(item, item.name, g.values, index + 1), dates, g.current, g.previous), g.current)
      })
      continue
    }
    // A formula: per group of the union of the kept groups of the items it names; an item that did not keep
    // a group counts 0 there. Its groups rank by their rounded sum, largest first, null last, then by values.
    const named = [...new Set(refsOf(item.expr))]
    const union = new Map<string, string[]>()
    for (const letter of named) for (const g of keptOf.get(letter) as KeptGroup[]) union.set(JSON.stringify(g.values), g.values)
    const valueIn = (letter: string, key: string, period: 'current' | 'previous', i: number): number => {
      const g = (keptOf.get(letter) as KeptGroup[]).find((kept) => JSON.stringify(kept.values) === key)
      return g === undefined ? 0 : (period === 'current' ? g.current : (g.previous as number[]))[i]
    }
    const lines = [...union].map(([key, values]) => {
      const current = buckets.map((_, i) => evaluate(item.expr, (l) => valueIn(l, key, 'current', i)))
      const previous = withPrevious ? prevBuckets.map((_, i) => evaluate(item.expr, (l) => valueIn(l, key, 'previous', i))) : null
      return { values, current, previous, shownSum: round2OrNull(stats(current).sum) }
    })
    if (hasBreakdowns) {
      lines.sort((a, b) => {
        if (a.shownSum !== b.shownSum) {
          if (a.shownSum === null) return 1
          if (b.shownSum === null) return -1
          return b.shownSum - a.shownSum
        }
        return compareValues(a.values, b.values)
      })
    }
    lines.forEach((line, index) => {
      push(seriesOut(headOf(item, item.formula, line.values, index + 1), dates, line.current, line.previous), line.current)
    })
  }

  // Top-level metrics over all response series' bucket values (nulls skipped).
  const presentSums = sums.filter((v): v is number => v !== null)
  const all = stats(allValues)
  const metrics = {
    sum: presentSums.length === 0 ? null : round2(presentSums.reduce((a, b) => a + b, 0)),
    average: round2OrNull(all.average),
    min: round2OrNull(all.min),
    max: round2OrNull(all.max),
  }
  return { status: 200, body: { series: out, metrics } }
}
