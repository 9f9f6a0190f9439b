// Reference model of the behaviour questions (funnel, retention, paths), written from the definitions
// in docs/definitions.md ("Funnels, retention and paths") and nothing else: plain TypeScript over raw event rows, searching every way a
// definition can be met rather than following the gateway's SQL. Clarity over speed.

import { compareBytes, percent2 } from './exact'
import {
  type Filter,
  isTreeText,
  matchValue,
  parseFilters,
  parseFilterTree,
  PROPERTY_PREFIX,
  SESSION_ATTRIBUTE_NAMES,
  EVENT_FIELD_NAMES,
  treeSelects,
  type TreeNode,
} from './filters'
import {
  buildSessions,
  compareEvents,
  eventField,
  normalize,
  resolveWindow,
  treeSubject,
  type Ev,
  type RawEvent,
  type Session,
  type Window,
} from './model'
import { bucketStarts, floorToUnit, formatInstant, isValidTimeZone, nextUnit } from './time'

export interface BehaviourRequest {
  events: RawEvent[]
  projectTimezone: string
  /** `funnel`, `retention` or `paths`. */
  resource: string
  /** The URL query; a repeated parameter is a list. */
  query: Record<string, string | string[]>
  now: Date
}

export interface BehaviourAnswer {
  status: number
  body: unknown
}

const BAD: BehaviourAnswer = { status: 400, body: null }
const HOUR = 3_600_000
const DAY = 24 * HOUR
const MAX_WINDOW_DAYS = 370

interface Step {
  name: string
  filters: Filter[]
}

// ---------------------------------------------------------------------------------------------------
// Parameters

export class Invalid extends Error {}
const fail = (why: string): never => {
  throw new Invalid(why)
}

function single(query: Record<string, string | string[]>, key: string): string | undefined {
  const value = query[key]
  if (Array.isArray(value)) fail(`${key} repeated`)
  return value as string | undefined
}

function integer(text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback
  if (!/^[0-9]+$/.test(text)) fail('not an integer')
  const n = Number(text)
  if (n < min || n > max) fail('out of range')
  return n
}

function oneOf<T extends string>(text: string | undefined, allowed: readonly T[]): T {
  if (text === undefined) return allowed[0]
  if (!(allowed as readonly string[]).includes(text)) fail(`not one of ${allowed.join(', ')}`)
  return text as T
}

/** Filters read on an event's own columns: the entry page is a session's, not an event's. */
export function eventColumnFilters(filters: Filter[]): Filter[] {
  if (filters.some((f) => f.name === 'entry_origin' || f.name === 'entry_path')) fail('entry page on an event')
  return filters
}

export function filtersParam(query: Record<string, string | string[]>): Filter[] {
  const text = single(query, 'filters')
  if (text === undefined) return []
  return parseFilters(text) ?? fail('filters')
}

function stepOf(value: unknown): Step {
  if (typeof value === 'string') {
    if (value.length < 1 || value.length > 200) fail('step name length')
    return { name: value, filters: [] }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('step shape')
  const item = value as Record<string, unknown>
  for (const key of Object.keys(item)) if (key !== 'name' && key !== 'filters') fail('step key')
  if (typeof item.name !== 'string' || item.name.length < 1 || item.name.length > 200) fail('step name')
  if (item.filters !== undefined && !Array.isArray(item.filters)) fail('step filters')
  const filters = parseFilters(JSON.stringify(item.filters ?? [])) ?? fail('step filters')
  return { name: item.name as string, filters: eventColumnFilters(filters) }
}

function stepFromText(text: string): Step {
  if (!text.trimStart().startsWith('{')) return stepOf(text)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return fail('step JSON')
  }
  return stepOf(parsed)
}

const COMMON = ['startDate', 'endDate', 'range', 'timezone', 'filters']

export function checkKnown(query: Record<string, string | string[]>, own: string[]): void {
  for (const key of Object.keys(query)) if (!COMMON.includes(key) && !own.includes(key)) fail(`unknown ${key}`)
}

export function windowOf(req: BehaviourRequest): { tz: string; w: Window } {
  const zone = single(req.query, 'timezone')
  if (zone !== undefined && !isValidTimeZone(zone)) fail('timezone')
  const tz = zone ?? req.projectTimezone
  const plain: Record<string, string> = {}
  for (const key of ['startDate', 'endDate', 'range']) {
    const value = single(req.query, key)
    if (value !== undefined) plain[key] = value
  }
  const w = resolveWindow(plain, tz, req.now.getTime()) ?? fail('window')
  if (w.end - w.start > MAX_WINDOW_DAYS * DAY) fail('window too long')
  return { tz, w }
}

// ---------------------------------------------------------------------------------------------------
// Matching

/** A filter on one event: event fields and properties, or a session attribute as the event's own column. */
function filterMatches(f: Filter, e: Ev): boolean {
  return matchValue(f, eventField(e, f.name))
}

export function stepMatches(step: Step, shared: Filter[], e: Ev): boolean {
  if (step.name !== '*' && e.name !== step.name) return false
  return [...step.filters, ...shared].every((f) => filterMatches(f, e))
}

function byKey(events: Ev[], key: (e: Ev) => string): Map<string, Ev[]> {
  const groups = new Map<string, Ev[]>()
  for (const e of events) {
    const k = key(e)
    const list = groups.get(k)
    if (list) list.push(e)
    else groups.set(k, [e])
  }
  for (const list of groups.values()) list.sort(compareEvents)
  return groups
}

// ---------------------------------------------------------------------------------------------------
// Funnel

/**
 * The deepest step a group reaches: try every entry e1 (inside the window, matching step 1) and every
 * way to pick distinct later events, each matching its step, at or after the one before, within the
 * window of hours of e1. Only the events used at the latest time can clash with a later pick (every
 * later pick is at that time or after), so the search remembers those and nothing else.
 */
function deepestStep(events: Ev[], steps: Step[], shared: Filter[], w: Window, windowMs: number): number {
  let best = 0
  for (const entry of events) {
    if (entry.t < w.start || entry.t >= w.end || !stepMatches(steps[0], shared, entry)) continue
    const limit = entry.t + windowMs
    const seen = new Set<string>()
    const search = (level: number, lastT: number, usedAtLast: string[]): number => {
      if (level === steps.length) return level
      const key = `${level}|${lastT}|${[...usedAtLast].sort().join(',')}`
      if (seen.has(key)) return level
      seen.add(key)
      let deepest = level
      for (const e of events) {
        if (e.t < lastT || e.t > limit) continue
        if (e.t === lastT && usedAtLast.includes(e.id)) continue
        if (!stepMatches(steps[level], shared, e)) continue
        deepest = Math.max(deepest, search(level + 1, e.t, e.t === lastT ? [...usedAtLast, e.id] : [e.id]))
        if (deepest === steps.length) return deepest
      }
      return deepest
    }
    best = Math.max(best, search(1, entry.t, [entry.id]))
    if (best === steps.length) break
  }
  return best
}

function funnelFigures(steps: Step[], reached: number[]) {
  const users = steps.map((_, i) => reached.filter((deepest) => deepest > i).length)
  const last = users.length - 1
  const dropoff = users.map((u, i) => (i === last || u === 0 ? null : percent2(u - users[i + 1], u)))
  let highest = -1
  dropoff.forEach((d, i) => {
    if (d !== null && (highest === -1 || d > (dropoff[highest] as number))) highest = i
  })
  const rate = (u: number) => (users[0] === 0 ? 0 : percent2(u, users[0]))
  return {
    steps: steps.map((step, i) => ({
      step: i + 1,
      eventName: step.name,
      users: users[i],
      conversionRateFromStart: rate(users[i]),
      dropoffPercent: dropoff[i],
      isHighestDropoff: i === highest,
    })),
    totalUsers: users[0],
    completedUsers: users[last],
    overallConversionRate: rate(users[last]),
  }
}

function parseFunnelSteps(query: Record<string, string | string[]>): Step[] {
  const raw = query.steps
  if (raw === undefined) return fail('steps required')
  const list = Array.isArray(raw) ? raw : [raw]
  if (list.length > 10) fail('too many step values')
  let steps: Step[]
  if (list.length === 1 && list[0].trimStart().startsWith('[')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(list[0])
    } catch {
      return fail('steps JSON')
    }
    if (!Array.isArray(parsed)) fail('steps array')
    steps = (parsed as unknown[]).map(stepOf)
  } else {
    steps = list.map(stepFromText)
  }
  if (steps.length < 2 || steps.length > 10) fail('step count')
  return steps
}

function breakdownName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  const known =
    (EVENT_FIELD_NAMES as string[]).includes(name) ||
    ((SESSION_ATTRIBUTE_NAMES as string[]).includes(name) && name !== 'entry_origin' && name !== 'entry_path') ||
    (name.startsWith(PROPERTY_PREFIX) && name.length > PROPERTY_PREFIX.length)
  return known ? name : fail('breakdown')
}

function funnel(req: BehaviourRequest): unknown {
  const q = req.query
  checkKnown(q, ['steps', 'windowHours', 'groupBy', 'breakdown', 'breakdownLimit'])
  const steps = parseFunnelSteps(q)
  const windowHours = integer(single(q, 'windowHours'), 24, 1, 720)
  const groupBy = oneOf(single(q, 'groupBy'), ['session_id', 'profile_id'] as const)
  const breakdown = breakdownName(single(q, 'breakdown'))
  const breakdownLimit = integer(single(q, 'breakdownLimit'), 10, 1, 100)
  const shared = eventColumnFilters(filtersParam(q))
  const { w } = windowOf(req)

  const events = req.events.map(normalize)
  const groups = byKey(events, (e) => (groupBy === 'session_id' ? e.session_id : e.profile_id))
  const rows: { value: string; deepest: number }[] = []
  for (const list of groups.values()) {
    const deepest = deepestStep(list, steps, shared, w, windowHours * HOUR)
    if (deepest === 0) continue
    const entry = list.find((e) => e.t >= w.start && e.t < w.end && stepMatches(steps[0], shared, e)) as Ev
    rows.push({ value: breakdown === undefined ? '' : eventField(entry, breakdown), deepest })
  }
  const body: Record<string, unknown> = funnelFigures(
    steps,
    rows.map((r) => r.deepest),
  )
  if (breakdown === undefined) return body
  const values = [...new Set(rows.map((r) => r.value))].map((value) => ({
    value,
    reached: rows.filter((r) => r.value === value).map((r) => r.deepest),
  }))
  values.sort((a, b) => b.reached.length - a.reached.length || compareBytes(a.value, b.value))
  body.breakdowns = values
    .slice(0, breakdownLimit)
    .map((v) => ({ value: v.value === '' ? null : v.value, ...funnelFigures(steps, v.reached) }))
  return body
}

// ---------------------------------------------------------------------------------------------------
// Retention

type Period = 'day' | 'week' | 'month'

function retention(req: BehaviourRequest): unknown {
  const q = req.query
  checkKnown(q, ['startEvent', 'returnEvent', 'period', 'periods', 'criteria'])
  const start = stepFromText(single(q, 'startEvent') ?? '*')
  const back = stepFromText(single(q, 'returnEvent') ?? '*')
  const period = oneOf(single(q, 'period'), ['week', 'day', 'month'] as const) as Period
  const periods = integer(single(q, 'periods'), 8, 1, 24)
  const criteria = oneOf(single(q, 'criteria'), ['on', 'on_or_after'] as const)
  const shared = eventColumnFilters(filtersParam(q))
  const { tz, w } = windowOf(req)
  const cohortStarts = bucketStarts(tz, w.start, w.end, period)
  if (cohortStarts.length > 400) fail('too many cohorts')
  const now = req.now.getTime()

  /** Periods from the one starting at `from` to the one holding `t` (negative before it). */
  const periodIndex = (from: number, t: number): number => {
    const target = floorToUnit(tz, t, period)
    let n = 0
    if (target < from) return -1
    for (let b = from; b < target; b = nextUnit(tz, b, period)) n += 1
    return n
  }
  const periodStart = (from: number, k: number): number => {
    let b = from
    for (let i = 0; i < k; i += 1) b = nextUnit(tz, b, period)
    return b
  }

  const visitors = byKey(req.events.map(normalize), (e) => e.profile_id)
  const cohorts = cohortStarts.map((date) => ({ date, members: [] as Ev[][] }))
  for (const list of visitors.values()) {
    const first = list.find((e) => e.t >= w.start && e.t < w.end && stepMatches(start, shared, e))
    if (!first) continue
    const cohort = cohorts.find((c) => c.date === floorToUnit(tz, first.t, period))
    if (!cohort) throw new Error('reference model: a start event outside every cohort')
    cohort.members.push(list)
  }

  const table = cohorts.map((c) => {
    const values = Array.from({ length: periods + 1 }, (_, k) => {
      if (periodStart(c.date, k) > now) return null
      if (k === 0) return c.members.length
      return c.members.filter((list) =>
        list.some((e) => {
          // A return counts in a period that has started: the later ones are null.
          if (!stepMatches(back, shared, e) || floorToUnit(tz, e.t, period) > now) return false
          const index = periodIndex(c.date, e.t)
          return criteria === 'on' ? index === k : index >= k && index <= periods
        }),
      ).length
    })
    const size = c.members.length
    const percentages = values.map((v) => (v === null ? null : size === 0 ? 0 : percent2(v, size)))
    return { date: formatInstant(tz, c.date), size, values, percentages }
  })
  const average = Array.from({ length: periods + 1 }, (_, k) => {
    const counted = table.filter((row) => row.values[k] !== null)
    if (counted.length === 0) return null
    const sizes = counted.reduce((sum, row) => sum + row.size, 0)
    const returned = counted.reduce((sum, row) => sum + (row.values[k] as number), 0)
    return sizes === 0 ? 0 : percent2(returned, sizes)
  })
  return { period, cohorts: table, average: { percentages: average } }
}

// ---------------------------------------------------------------------------------------------------
// Paths

function sessionKeptBy(s: Session, filters: Filter[] | TreeNode): boolean {
  if (!Array.isArray(filters)) return treeSelects(filters, treeSubject(s))
  const attribute = (name: string) =>
    name === 'entry_origin' ? s.first.cols.origin : name === 'entry_path' ? s.first.cols.path : eventField(s.first, name)
  const sessionFilters = filters.filter((f) => f.kind === 'session')
  const eventFilters = filters.filter((f) => f.kind === 'event')
  if (!sessionFilters.every((f) => matchValue(f, attribute(f.name)))) return false
  return eventFilters.length === 0 || s.events.some((e) => eventFilters.every((f) => filterMatches(f, e)))
}

/** OpenPanel's user flow cut of a paths sequence (test/reference/openpanel-shapes.ts): mode, end and name lists. */
export interface PathsFlow {
  mode: 'after' | 'before' | 'between'
  end?: string
  include?: string[]
  exclude?: string[]
}

function paths(req: BehaviourRequest, flow?: PathsFlow): unknown {
  const q = req.query
  checkKnown(q, ['node', 'start', 'steps', 'limit'])
  const node = oneOf(single(q, 'node'), ['page', 'event'] as const)
  const startText = single(q, 'start')
  const start = startText === undefined ? undefined : stepFromText(startText)
  const steps = integer(single(q, 'steps'), 5, 2, 10)
  const limit = integer(single(q, 'limit'), 10, 1, 100)
  const filtersText = single(q, 'filters')
  const filters = filtersText !== undefined && isTreeText(filtersText) ? (parseFilterTree(filtersText) ?? fail('filters')) : filtersParam(q)
  const { w } = windowOf(req)

  const sequences: string[][] = []
  for (const s of buildSessions(req.events.map(normalize)).values()) {
    if (s.start < w.start || s.start >= w.end || !sessionKeptBy(s, filters)) continue
    const kept = flow?.include && [...flow.include, start?.name, flow.end]
    let nodes = s.events.filter(
      (e) => (node === 'event' || e.name === 'screen_view') && (!kept || kept.includes(e.name)) && !flow?.exclude?.includes(e.name),
    )
    if (start) {
      const from = nodes.findIndex((e) => stepMatches(start, [], e))
      if (from === -1) continue
      const to = nodes.findIndex((e, i) => i > from && e.name === flow?.end)
      if (flow?.mode === 'between' && to === -1) continue
      nodes = flow?.mode === 'before' ? nodes.slice(0, from + 1) : flow?.mode === 'between' ? nodes.slice(from, to + 1) : nodes.slice(from)
    }
    const labels = nodes.map((e) => (node === 'page' ? e.cols.path : e.name))
    const collapsed = labels.filter((label, i) => i === 0 || label !== labels[i - 1])
    const cut = flow?.mode === 'before' ? collapsed.slice(Math.max(0, collapsed.length - steps)) : collapsed.slice(0, steps)
    if (cut.length) sequences.push(cut)
  }

  const rank = <T extends { sessions: number }>(rows: T[], text: (row: T) => string[]) =>
    rows
      .sort((a, b) => {
        if (a.sessions !== b.sessions) return b.sessions - a.sessions
        const [ta, tb] = [text(a), text(b)]
        for (let i = 0; i < ta.length; i += 1) if (ta[i] !== tb[i]) return compareBytes(ta[i], tb[i])
        return 0
      })
      .slice(0, limit)
  const stepRows = []
  const links = []
  for (let i = 0; i < steps; i += 1) {
    const at = sequences.filter((seq) => seq.length > i)
    if (at.length === 0) break
    const labels = [...new Set(at.map((seq) => seq[i]))]
    const nodes = labels.map((label) => {
      const here = at.filter((seq) => seq[i] === label)
      return { label, sessions: here.length, exits: here.filter((seq) => seq.length === i + 1).length }
    })
    stepRows.push({ step: i + 1, nodes: rank(nodes, (n) => [n.label]) })
    const pairs = new Map<string, { step: number; source: string; target: string; sessions: number }>()
    for (const seq of at.filter((s) => s.length > i + 1)) {
      const key = JSON.stringify([seq[i], seq[i + 1]])
      const pair = pairs.get(key) ?? { step: i + 1, source: seq[i], target: seq[i + 1], sessions: 0 }
      pair.sessions += 1
      pairs.set(key, pair)
    }
    links.push(...rank([...pairs.values()], (l) => [l.source, l.target]))
  }
  const body: Record<string, unknown> = { sessions: sequences.length, steps: stepRows, links }
  if (start && sequences.length === 0) {
    const pageOnly = node === 'page' && start.name !== 'screen_view' && start.name !== '*'
    const page = start.name.startsWith('/') ? start.name : '/pricing'
    const hint = JSON.stringify({ name: 'screen_view', filters: [{ name: 'path', operator: 'is', value: [page] }] })
    body.meta = {
      warnings: [
        pageOnly
          ? `"start" names the event "${start.name}", but with node=page a sequence holds page views only; to begin at a page, send start=${hint}`
          : '"start" matches no event of the window\'s sessions, so no sequence begins',
      ],
    }
  }
  return body
}

// ---------------------------------------------------------------------------------------------------
// Entry point

/** Paths cut as OpenPanel's user flow asks, or a 400. */
export function answerPathsFlow(req: Omit<BehaviourRequest, 'resource'>, flow: PathsFlow): BehaviourAnswer {
  try {
    return { status: 200, body: paths({ ...req, resource: 'paths' }, flow) }
  } catch (error) {
    if (error instanceof Invalid) return BAD
    throw error
  }
}

export function answerBehaviour(req: BehaviourRequest): BehaviourAnswer {
  try {
    switch (req.resource) {
      case 'funnel':
        return { status: 200, body: funnel(req) }
      case 'retention':
        return { status: 200, body: retention(req) }
      case 'paths':
        return { status: 200, body: paths(req) }
      default:
        return BAD
    }
  } catch (error) {
    if (error instanceof Invalid) return BAD
    throw error
  }
}
