// Reference model of Quarry's insights endpoints.
//
// Plain TypeScript over raw event rows, following docs/definitions.md line by line. It shares no code
// with the gateway (nothing from server/ or queries/) and never touches ClickHouse. Clarity over speed.

import { compareBytes, meanSeconds2, percent2, ratioHalfUp2 } from './exact'
import {
  DIMENSION_NAMES,
  type Filter,
  isTreeText,
  matchValue,
  parseFilters,
  parseFilterTree,
  PROPERTY_PREFIX,
  treeSelects,
  type TreeNode,
} from './filters'
import {
  addDays,
  addMonths,
  bucketStarts,
  type CivilDate,
  DURATION,
  floorToUnit,
  formatInstant,
  type Interval,
  isValidCivilDate,
  isValidTimeZone,
  localDate,
  startOfDay,
  wallToMs,
} from './time'

// ---------------------------------------------------------------------------------------------------
// Public interface

export interface RawEvent {
  id: string
  project_id?: string
  name: string
  device_id: string
  profile_id?: string
  session_id: string
  created_at: string
  path?: string
  origin?: string
  title?: string
  referrer?: string
  referrer_name?: string
  referrer_type?: string
  utm_source?: string
  utm_medium?: string
  utm_campaign?: string
  utm_term?: string
  utm_content?: string
  country?: string
  region?: string
  city?: string
  device?: string
  brand?: string
  model?: string
  browser?: string
  browser_version?: string
  os?: string
  os_version?: string
  duration?: number
  revenue?: number
  groups?: string[]
  properties?: Record<string, string>
  // Columns only the export endpoints read (the insights model ignores them).
  latitude?: number | null
  longitude?: number | null
  sdk_name?: string
  sdk_version?: string
  imported_at?: string | null
}

export interface ModelRequest {
  /** One project's raw rows. */
  events: RawEvent[]
  projectTimezone: string
  /** `live`, `metrics`, `pages` or a dimension resource. */
  resource: string
  /** The URL query, as strings. */
  query: Record<string, string>
  now: Date
}

export interface ModelAnswer {
  status: number
  body: unknown
  /** Whether rows exist after this page (the response would carry `Link: ...; rel="next"`). */
  next: boolean
}

export const DIMENSION_RESOURCES = DIMENSION_NAMES
type DimensionName = (typeof DIMENSION_RESOURCES)[number]

const DIMENSION_PREFIX: Partial<Record<DimensionName, DimensionName>> = {
  region: 'country',
  city: 'country',
  browser_version: 'browser',
  os_version: 'os',
}

export const RANGES = [
  '30min',
  'lastHour',
  'last24h',
  'today',
  'yesterday',
  '7d',
  '30d',
  '3m',
  '6m',
  '12m',
  'monthToDate',
  'lastMonth',
  'yearToDate',
  'lastYear',
  'custom',
] as const

export const INTERVALS: readonly Interval[] = ['minute', 'hour', 'day', 'week', 'month']

const ALLOWED_PARAMS: Record<'live' | 'metrics' | 'list', readonly string[]> = {
  live: [],
  metrics: ['startDate', 'endDate', 'range', 'filters', 'timezone', 'interval'],
  list: ['startDate', 'endDate', 'range', 'filters', 'timezone', 'limit', 'cursor'],
}

/** `/pages` also takes its order and a search. */
const PAGES_PARAMS = ['sortBy', 'sortOrder', 'search']

const BAD_REQUEST: ModelAnswer = { status: 400, body: null, next: false }

// ---------------------------------------------------------------------------------------------------
// Events and sessions

const STRING_COLUMNS = ['path', 'origin', 'title', ...DIMENSION_NAMES] as const
type StringColumn = (typeof STRING_COLUMNS)[number]

/** An event with every default applied. */
export interface Ev {
  id: string
  /** The id as lowercase text, used for every tie-break. */
  idText: string
  name: string
  device_id: string
  profile_id: string
  session_id: string
  /** created_at as epoch ms. */
  t: number
  cols: Record<StringColumn, string>
  revenue: number
  properties: Record<string, string>
}

export interface Session {
  id: string
  /** All its events ordered by (created_at, id text). */
  events: Ev[]
  /** The first event: smallest created_at, then smallest id text. Carries the session's attributes. */
  first: Ev
  start: number
  end: number
  /** end − start in ms. */
  durationMs: number
  /** All its page views (events named screen_view), ordered by (created_at, id text). */
  pageViews: Ev[]
  /** At most one page view, whatever the filters. */
  bounce: boolean
  /** The last page view (largest created_at, then largest id text): its origin and path are the exit page; null without page views. */
  exit: Ev | null
}

/** Parses an event's created_at: ISO 8601 with `Z` or an offset (a value without one is read as UTC). */
export function parseEventTime(s: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?$/.exec(s)
  if (!m) throw new Error(`reference model: bad created_at ${JSON.stringify(s)}`)
  const frac = (m[7] ?? '').padEnd(3, '0').slice(0, 3)
  const wall = wallToMs({
    y: Number(m[1]),
    m: Number(m[2]),
    d: Number(m[3]),
    h: Number(m[4]),
    mi: Number(m[5]),
    s: Number(m[6] ?? '0'),
    ms: Number(frac),
  })
  return wall - offsetMs(m[8])
}

function offsetMs(z: string | undefined): number {
  if (z === undefined || z === 'Z' || z === 'z') return 0
  const digits = z.slice(1).replace(':', '')
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))
  return (z[0] === '-' ? -1 : 1) * minutes * DURATION.MS_MINUTE
}

export function normalize(e: RawEvent): Ev {
  const cols = {} as Record<StringColumn, string>
  for (const c of STRING_COLUMNS) cols[c] = e[c] ?? ''
  return {
    id: e.id,
    idText: e.id.toLowerCase(),
    name: e.name ?? '',
    device_id: e.device_id ?? '',
    profile_id: e.profile_id ?? e.device_id ?? '',
    session_id: e.session_id ?? '',
    t: parseEventTime(e.created_at),
    cols,
    revenue: e.revenue ?? 0,
    properties: e.properties ?? {},
  }
}

/** Order of events: created_at, then id text (bytewise). */
export function compareEvents(a: Ev, b: Ev): number {
  if (a.t !== b.t) return a.t - b.t
  return compareBytes(a.idText, b.idText)
}

export function buildSessions(events: Ev[]): Map<string, Session> {
  const bySession = new Map<string, Ev[]>()
  for (const e of events) {
    const list = bySession.get(e.session_id)
    if (list) list.push(e)
    else bySession.set(e.session_id, [e])
  }
  const sessions = new Map<string, Session>()
  for (const [id, list] of bySession) {
    const sorted = [...list].sort(compareEvents)
    const first = sorted[0]
    const start = first.t
    const end = Math.max(...sorted.map((e) => e.t))
    const pageViews = sorted.filter((e) => e.name === 'screen_view')
    sessions.set(id, {
      id,
      events: sorted,
      first,
      start,
      end,
      durationMs: end - start,
      pageViews,
      bounce: pageViews.length <= 1,
      exit: pageViews.length ? pageViews[pageViews.length - 1] : null,
    })
  }
  return sessions
}

/** A session attribute (the first event's), including entry_origin / entry_path. */
function sessionAttribute(s: Session, name: string): string {
  if (name === 'entry_origin') return s.first.cols.origin
  if (name === 'entry_path') return s.first.cols.path
  return s.first.cols[name as StringColumn]
}

/** An event field: name, path, origin, title or properties.<key> (a missing key reads as ""). */
export function eventField(e: Ev, name: string): string {
  if (name === 'name') return e.name
  if (name.startsWith(PROPERTY_PREFIX)) {
    const key = name.slice(PROPERTY_PREFIX.length)
    return Object.hasOwn(e.properties, key) ? e.properties[key] : ''
  }
  return e.cols[name as StringColumn]
}

// ---------------------------------------------------------------------------------------------------
// Filters applied to sessions and events

interface FilterSet {
  session: Filter[]
  event: Filter[]
  /** Event-field filters other than `name` (used to count page views). */
  eventNonName: Filter[]
  /** A filter tree (then the lists are empty): it selects sessions, and all their page views count. */
  tree?: TreeNode
}

function splitFilters(filters: Filter[]): FilterSet {
  const session = filters.filter((f) => f.kind === 'session')
  const event = filters.filter((f) => f.kind === 'event')
  return { session, event, eventNonName: event.filter((f) => f.name !== 'name') }
}

/** The session as a tree reads it. */
export function treeSubject(s: Session): { attribute(name: string): string; events: { name: string; field(name: string): string }[] } {
  return {
    attribute: (name) => sessionAttribute(s, name),
    events: s.events.map((e) => ({ name: e.name, field: (name: string) => eventField(e, name) })),
  }
}

function passesSessionAttributeFilters(s: Session, fs: FilterSet): boolean {
  if (fs.tree && !treeSelects(fs.tree, treeSubject(s))) return false
  return fs.session.every((f) => matchValue(f, sessionAttribute(s, f.name)))
}

function eventMatches(e: Ev, filters: Filter[]): boolean {
  return filters.every((f) => matchValue(f, eventField(e, f.name)))
}

/** Kept by the filters: attributes pass, and (if there are event filters) one event matches all of them. */
function sessionKept(s: Session, fs: FilterSet): boolean {
  if (!passesSessionAttributeFilters(s, fs)) return false
  if (fs.event.length === 0) return true
  return s.events.some((e) => eventMatches(e, fs.event))
}

/** A session's page views as counted by metrics/dimensions: those matching the non-name event filters. */
function countedPageViews(s: Session, fs: FilterSet): number {
  return s.pageViews.filter((e) => eventMatches(e, fs.eventNonName)).length
}

// ---------------------------------------------------------------------------------------------------
// Request parameters: window, interval, paging

export interface Window {
  start: number
  end: number
}

/**
 * `startDate` / `endDate`: `YYYY-MM-DD` (midnight in tz; an end date means the next day's midnight)
 * or an ISO date-time with `Z` or `±HH:MM` (the instant itself). null = invalid.
 */
export function parseQueryDate(text: string, tz: string, isEnd: boolean): number | null {
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (dateOnly) {
    const c = { y: Number(dateOnly[1]), m: Number(dateOnly[2]), d: Number(dateOnly[3]) }
    if (!isValidCivilDate(c.y, c.m, c.d)) return null
    return startOfDay(tz, isEnd ? addDays(c, 1) : c)
  }
  const dt = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/.exec(text)
  if (!dt) return null
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(dt[i] ?? '0'))
  if (!isValidCivilDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return null
  const z = dt[8]
  if (z !== 'Z' && (Number(z.slice(1, 3)) > 23 || Number(z.slice(4, 6)) > 59)) return null
  const ms = Number((dt[7] ?? '').padEnd(3, '0').slice(0, 3))
  return wallToMs({ y, m: mo, d, h, mi, s, ms }) - offsetMs(z)
}

const pad2 = (n: number) => String(n).padStart(2, '0')

/** OpenPanel's default window: with neither `startDate` nor `range`, the local day 30 days before today starts it. */
export function withOpenPanelWindow<Q extends Record<string, unknown>>(query: Q, tz: string, now: number): Q {
  if (query.startDate !== undefined || query.range !== undefined) return query
  const start = addDays(localDate(tz, now), -30)
  return { ...query, startDate: `${start.y}-${pad2(start.m)}-${pad2(start.d)}` }
}

export function resolveWindow(query: Record<string, string>, tz: string, now: number): Window | null {
  const range = query.range ?? '7d'
  if (!(RANGES as readonly string[]).includes(range)) return null

  if (query.startDate !== undefined) {
    const start = parseQueryDate(query.startDate, tz, false)
    if (start === null) return null
    let end = now
    if (query.endDate !== undefined) {
      const e = parseQueryDate(query.endDate, tz, true)
      if (e === null) return null
      end = e
    }
    if (start >= end) return null
    return { start, end }
  }
  if (query.endDate !== undefined) return null // endDate alone

  const today = localDate(tz, now)
  const tomorrow = addDays(today, 1)
  const D0 = startOfDay(tz, today)
  const D1 = startOfDay(tz, tomorrow)
  const firstOfThisMonth: CivilDate = { y: today.y, m: today.m, d: 1 }
  switch (range) {
    case '30min':
      return { start: now - 30 * DURATION.MS_MINUTE, end: now }
    case 'lastHour':
      return { start: now - 60 * DURATION.MS_MINUTE, end: now }
    case 'last24h':
      return { start: now - 24 * DURATION.MS_HOUR, end: now }
    case 'today':
      return { start: D0, end: D1 }
    case 'yesterday':
      return { start: startOfDay(tz, addDays(today, -1)), end: D0 }
    case '7d':
      return { start: startOfDay(tz, addDays(tomorrow, -7)), end: D1 }
    case '30d':
      return { start: startOfDay(tz, addDays(tomorrow, -30)), end: D1 }
    case '3m':
      return { start: startOfDay(tz, addMonths(tomorrow, -3)), end: D1 }
    case '6m':
      return { start: startOfDay(tz, addMonths(tomorrow, -6)), end: D1 }
    case '12m':
      return { start: startOfDay(tz, addMonths(tomorrow, -12)), end: D1 }
    case 'monthToDate':
      return { start: startOfDay(tz, firstOfThisMonth), end: D1 }
    case 'lastMonth':
      return { start: startOfDay(tz, addMonths(firstOfThisMonth, -1)), end: startOfDay(tz, firstOfThisMonth) }
    case 'yearToDate':
      return { start: startOfDay(tz, { y: today.y, m: 1, d: 1 }), end: D1 }
    case 'lastYear':
      return { start: startOfDay(tz, { y: today.y - 1, m: 1, d: 1 }), end: startOfDay(tz, { y: today.y, m: 1, d: 1 }) }
    default:
      return null // custom needs startDate
  }
}

export function defaultInterval(w: Window): Interval {
  const length = w.end - w.start
  if (length <= 2 * DURATION.MS_DAY) return 'hour'
  if (length <= 92 * DURATION.MS_DAY) return 'day'
  if (length <= 366 * DURATION.MS_DAY) return 'week'
  return 'month'
}

/** A positive-looking integer parameter ("digits only"); null = invalid. */
export function parseIntegerParam(text: string): number | null {
  if (!/^[0-9]+$/.test(text)) return null
  return Number(text)
}

interface Paging {
  limit: number
  cursor: number
}

function parsePaging(query: Record<string, string>): Paging | null {
  const limit = query.limit === undefined ? 10 : parseIntegerParam(query.limit)
  const cursor = query.cursor === undefined ? 1 : parseIntegerParam(query.cursor)
  if (limit === null || cursor === null) return null
  if (limit < 1 || limit > 1000 || cursor < 1) return null
  return { limit, cursor }
}

function page<T>(rows: T[], p: Paging): { rows: T[]; next: boolean } {
  const from = (p.cursor - 1) * p.limit
  const to = p.cursor * p.limit
  return { rows: rows.slice(from, to), next: rows.length > to }
}

// ---------------------------------------------------------------------------------------------------
// Entry point

export function answerInsights(req: ModelRequest): ModelAnswer {
  const { resource, query } = req
  const now = req.now.getTime()

  let kind: 'live' | 'metrics' | 'list'
  if (resource === 'live') kind = 'live'
  else if (resource === 'metrics') kind = 'metrics'
  else if (resource === 'pages' || resource === 'pages/entry_exit' || (DIMENSION_RESOURCES as readonly string[]).includes(resource))
    kind = 'list'
  else return { status: 404, body: null, next: false }

  const allowed =
    resource === 'pages'
      ? [...ALLOWED_PARAMS.list, ...PAGES_PARAMS]
      : resource === 'pages/entry_exit'
        ? [...ALLOWED_PARAMS.list, 'mode']
        : ALLOWED_PARAMS[kind]
  for (const key of Object.keys(query)) if (!allowed.includes(key)) return BAD_REQUEST

  const events = req.events.map(normalize)

  if (kind === 'live') return { status: 200, body: live(events, now), next: false }

  // Every parameter is validated, whatever the others say.
  const tz = query.timezone ?? req.projectTimezone
  if (!isValidTimeZone(tz)) return BAD_REQUEST
  // OpenPanel's route, so OpenPanel's default window.
  const window = resolveWindow(resource === 'pages/entry_exit' ? withOpenPanelWindow(query, tz, now) : query, tz, now)
  const tree = query.filters !== undefined && isTreeText(query.filters) ? parseFilterTree(query.filters) : undefined
  const filters = query.filters === undefined ? [] : tree !== undefined ? (tree === null ? null : []) : parseFilters(query.filters)
  let interval: Interval | null = null
  if (kind === 'metrics') {
    if (query.interval !== undefined) {
      if (!(INTERVALS as readonly string[]).includes(query.interval)) return BAD_REQUEST
      interval = query.interval as Interval
    }
  }
  const paging = kind === 'list' ? parsePaging(query) : { limit: 10, cursor: 1 }
  const pageOrder = resource === 'pages' ? parsePageOrder(query) : null
  if (window === null || filters === null || paging === null) return BAD_REQUEST
  if (resource === 'pages' && pageOrder === null) return BAD_REQUEST
  // Without `mode`, entry pages (OpenPanel's default).
  const mode = query.mode ?? 'entry'
  if (resource === 'pages/entry_exit' && mode !== 'entry' && mode !== 'exit') return BAD_REQUEST

  const fs: FilterSet = { ...splitFilters(filters), ...(tree ? { tree } : {}) }
  const sessions = buildSessions(events)

  if (kind === 'metrics') {
    return { status: 200, body: metrics(events, sessions, fs, window, tz, interval ?? defaultInterval(window)), next: false }
  }
  const rows =
    resource === 'pages'
      ? orderPages(pages(events, sessions, fs, window), pageOrder as PageOrder)
      : resource === 'pages/entry_exit'
        ? entryExit(mode as 'entry' | 'exit', sessions, fs, window)
        : dimension(resource as DimensionName, sessions, fs, window)
  const { rows: pageRows, next } = page<unknown>(rows, paging)
  return { status: 200, body: pageRows, next }
}

// ---------------------------------------------------------------------------------------------------
// /live

function live(events: Ev[], now: number): { visitors: number } {
  const from = now - 5 * DURATION.MS_MINUTE
  const profiles = new Set(events.filter((e) => e.t >= from && e.t <= now).map((e) => e.profile_id))
  return { visitors: profiles.size }
}

// ---------------------------------------------------------------------------------------------------
// /metrics

export interface Figures {
  bounce_rate: number
  unique_visitors: number
  total_sessions: number
  avg_session_duration: number
  total_screen_views: number
  views_per_session: number
  total_revenue: number
}

function windowSessions(sessions: Map<string, Session>, fs: FilterSet, w: Window): Session[] {
  return [...sessions.values()].filter((s) => s.start >= w.start && s.start < w.end && sessionKept(s, fs))
}

/** The figures of a set of (already kept) sessions plus a revenue total. */
function figures(kept: Session[], fs: FilterSet, revenue: number): Figures {
  const n = kept.length
  const bounces = kept.filter((s) => s.bounce).length
  const durationSum = kept.reduce((acc, s) => acc + s.durationMs, 0)
  const views = kept.reduce((acc, s) => acc + countedPageViews(s, fs), 0)
  return {
    bounce_rate: n === 0 ? 0 : percent2(bounces, n),
    unique_visitors: new Set(kept.map((s) => s.first.profile_id)).size,
    total_sessions: n,
    avg_session_duration: n === 0 ? 0 : meanSeconds2(durationSum, n),
    total_screen_views: views,
    views_per_session: n === 0 ? 0 : ratioHalfUp2(BigInt(views), BigInt(n)),
    total_revenue: revenue,
  }
}

/**
 * Revenue events: created_at in the window, session kept by the session-attribute filters (whenever it
 * started), and the event itself matches every event-field filter.
 */
function revenueEvents(events: Ev[], sessions: Map<string, Session>, fs: FilterSet, w: Window): Ev[] {
  return events.filter((e) => {
    if (!(e.t >= w.start && e.t < w.end)) return false
    const s = sessions.get(e.session_id)
    if (!s || !passesSessionAttributeFilters(s, fs)) return false
    return eventMatches(e, fs.event)
  })
}

function metrics(
  events: Ev[],
  sessions: Map<string, Session>,
  fs: FilterSet,
  w: Window,
  tz: string,
  interval: Interval,
): { metrics: Figures; series: Array<{ date: string } & Figures> } {
  const kept = windowSessions(sessions, fs, w)
  const revEvents = revenueEvents(events, sessions, fs, w)
  const sumRevenue = (list: Ev[]): number => list.reduce((acc, e) => acc + e.revenue, 0)

  // A session belongs to the bucket of its start; a revenue event to the bucket of its created_at.
  const sessionBucket = new Map(kept.map((s) => [s, floorToUnit(tz, s.start, interval)] as const))
  const eventBucket = new Map(revEvents.map((e) => [e, floorToUnit(tz, e.t, interval)] as const))
  const series = bucketStarts(tz, w.start, w.end, interval).map((b) => {
    const bucketSessions = kept.filter((s) => sessionBucket.get(s) === b)
    const bucketRevenue = sumRevenue(revEvents.filter((e) => eventBucket.get(e) === b))
    return { date: formatInstant(tz, b), ...figures(bucketSessions, fs, bucketRevenue) }
  })
  return { metrics: figures(kept, fs, sumRevenue(revEvents)), series }
}

// ---------------------------------------------------------------------------------------------------
// /pages

export interface PageRow {
  title: string
  origin: string
  path: string
  sessions: number
  pageviews: number
  bounce_rate: number | null
  avg_duration: number | null
}

function pages(events: Ev[], sessions: Map<string, Session>, fs: FilterSet, w: Window): PageRow[] {
  const views = events.filter((e) => {
    if (e.name !== 'screen_view') return false
    if (!(e.t >= w.start && e.t < w.end)) return false
    const s = sessions.get(e.session_id)
    if (!s || !sessionKept(s, fs)) return false
    return eventMatches(e, fs.eventNonName)
  })

  const groups = new Map<string, Ev[]>()
  for (const v of views) {
    const key = JSON.stringify([v.cols.origin, v.cols.path])
    const list = groups.get(key)
    if (list) list.push(v)
    else groups.set(key, [v])
  }

  const rows: PageRow[] = []
  for (const list of groups.values()) {
    const origin = list[0].cols.origin
    const path = list[0].cols.path
    const sessionIds = [...new Set(list.map((v) => v.session_id))]

    // title: latest (created_at, then id text) of the row's views with a non-empty title
    const titled = list.filter((v) => v.cols.title !== '').sort(compareEvents)
    const title = titled.length > 0 ? titled[titled.length - 1].cols.title : ''

    // bounce_rate: the window's kept sessions (start in the window) whose entry page is this (origin, path),
    // whether or not they have a counted view of it
    const entered = windowSessions(sessions, fs, w).filter((s) => s.first.cols.origin === origin && s.first.cols.path === path)
    const bounce_rate = entered.length === 0 ? null : percent2(entered.filter((s) => s.bounce).length, entered.length)

    // avg_duration: gap from each of the row's views to the session's next page view, if any
    const gaps: number[] = []
    for (const v of list) {
      const pvs = (sessions.get(v.session_id) as Session).pageViews
      const i = pvs.indexOf(v)
      if (i >= 0 && i + 1 < pvs.length) gaps.push(pvs[i + 1].t - v.t)
    }
    const avg_duration =
      gaps.length === 0
        ? null
        : meanSeconds2(
            gaps.reduce((a, b) => a + b, 0),
            gaps.length,
          )

    rows.push({ title, origin, path, sessions: sessionIds.length, pageviews: list.length, bounce_rate, avg_duration })
  }

  return rows.sort((a, b) => b.sessions - a.sessions || compareBytes(a.origin, b.origin) || compareBytes(a.path, b.path))
}

// /pages order and search: `sortBy` (sessions, pageviews, bounce_rate, avg_duration; default sessions),
// `sortOrder` (desc default, asc), `search` (at most 200 characters, case-insensitive substring of the
// row's path or its title). The values compared are those of the rows as answered (rounded); rows whose
// value is null come last in either direction; ties by origin, then path, bytewise ascending.

const PAGE_SORTS = ['sessions', 'pageviews', 'bounce_rate', 'avg_duration'] as const

interface PageOrder {
  sortBy: (typeof PAGE_SORTS)[number]
  descending: boolean
  search: string
}

function parsePageOrder(query: Record<string, string>): PageOrder | null {
  const sortBy = query.sortBy ?? 'sessions'
  const sortOrder = query.sortOrder ?? 'desc'
  const search = query.search ?? ''
  if (!(PAGE_SORTS as readonly string[]).includes(sortBy)) return null
  if (sortOrder !== 'desc' && sortOrder !== 'asc') return null
  if ([...search].length > 200) return null
  return { sortBy: sortBy as PageOrder['sortBy'], descending: sortOrder === 'desc', search }
}

function orderPages(rows: PageRow[], order: PageOrder): PageRow[] {
  const needle = order.search.toLowerCase()
  const found = rows.filter((row) => row.path.toLowerCase().includes(needle) || row.title.toLowerCase().includes(needle))
  const byValue = (a: PageRow, b: PageRow): number => {
    const x = a[order.sortBy]
    const y = b[order.sortBy]
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1
    return order.descending ? y - x : x - y
  }
  return found.sort((a, b) => byValue(a, b) || compareBytes(a.origin, b.origin) || compareBytes(a.path, b.path))
}

// ---------------------------------------------------------------------------------------------------
// Dimensions

export interface DimensionRow {
  prefix?: string | null
  name: string | null
  sessions: number
  pageviews: number
  bounce_rate: number
  avg_session_duration: number
}

function dimension(dim: DimensionName, sessions: Map<string, Session>, fs: FilterSet, w: Window): DimensionRow[] {
  const prefixDim = DIMENSION_PREFIX[dim]
  const kept = windowSessions(sessions, fs, w)

  const groups = new Map<string, { prefix: string; name: string; list: Session[] }>()
  for (const s of kept) {
    const name = sessionAttribute(s, dim)
    const prefix = prefixDim ? sessionAttribute(s, prefixDim) : ''
    const key = JSON.stringify([prefix, name])
    const g = groups.get(key)
    if (g) g.list.push(s)
    else groups.set(key, { prefix, name, list: [s] })
  }

  const sorted = [...groups.values()].sort(
    (a, b) => b.list.length - a.list.length || compareBytes(a.prefix, b.prefix) || compareBytes(a.name, b.name),
  )

  return sorted.map((g) => {
    const f = figures(g.list, fs, 0)
    const row: DimensionRow = {
      name: g.name === '' ? null : g.name,
      sessions: f.total_sessions,
      pageviews: f.total_screen_views,
      bounce_rate: f.bounce_rate,
      avg_session_duration: f.avg_session_duration,
    }
    return prefixDim ? { prefix: g.prefix === '' ? null : g.prefix, ...row } : row
  })
}

// ---------------------------------------------------------------------------------------------------
// /pages/entry_exit

export interface EntryExitRow {
  origin: string
  path: string
  sessions: number
  bounce_rate: number
  avg_session_duration: number
  exit_rate?: number
}

/**
 * The window's kept sessions per entry page (the first event's origin and path) or exit page (the last page
 * view's; a session without page views has none). An exit page's exit_rate = 100 × its exits / the views
 * of that page in all the kept sessions (every view, whatever the filters).
 */
function entryExit(mode: 'entry' | 'exit', sessions: Map<string, Session>, fs: FilterSet, w: Window): EntryExitRow[] {
  const kept = windowSessions(sessions, fs, w)
  const groups = new Map<string, { origin: string; path: string; list: Session[] }>()
  for (const s of kept) {
    const at = mode === 'entry' ? s.first : s.exit
    if (at === null) continue
    const key = JSON.stringify([at.cols.origin, at.cols.path])
    const g = groups.get(key)
    if (g) g.list.push(s)
    else groups.set(key, { origin: at.cols.origin, path: at.cols.path, list: [s] })
  }
  const sorted = [...groups.values()].sort(
    (a, b) => b.list.length - a.list.length || compareBytes(a.origin, b.origin) || compareBytes(a.path, b.path),
  )
  return sorted.map((g) => {
    const n = g.list.length
    const row: EntryExitRow = {
      origin: g.origin,
      path: g.path,
      sessions: n,
      bounce_rate: percent2(g.list.filter((s) => s.bounce).length, n),
      avg_session_duration: meanSeconds2(
        g.list.reduce((acc, s) => acc + s.durationMs, 0),
        n,
      ),
    }
    if (mode === 'exit') {
      const views = kept.reduce((acc, s) => acc + s.pageViews.filter((v) => v.cols.origin === g.origin && v.cols.path === g.path).length, 0)
      row.exit_rate = percent2(n, views)
    }
    return row
  })
}

// ---------------------------------------------------------------------------------------------------
// /sessions

/** One listed session, as the sessions list shows it. */
export interface ListedSession {
  id: string
  profileId: string
  startedAt: string
  endedAt: string
  duration: number
  screenViews: number
  events: number
  bounce: boolean
  entryOrigin: string
  entryPath: string
  exitOrigin: string | null
  exitPath: string | null
  referrer: string
  referrerName: string
  referrerType: string
  utmSource: string
  utmMedium: string
  utmCampaign: string
  utmTerm: string
  utmContent: string
  country: string
  region: string
  city: string
  device: string
  browser: string
  os: string
}

/**
 * Every session of the window kept by the filters, newest start first, ties by session id descending
 * (bytewise): the whole list the sessions route pages through. null for a request it refuses (its
 * `limit` and `cursor` aside, which only page).
 */
export function listSessions(req: Omit<ModelRequest, 'resource'>): ListedSession[] | null {
  const { query } = req
  const allowed = ['startDate', 'endDate', 'range', 'filters', 'timezone', 'limit', 'cursor']
  for (const key of Object.keys(query)) if (!allowed.includes(key)) return null
  const tz = query.timezone ?? req.projectTimezone
  if (!isValidTimeZone(tz)) return null
  const window = resolveWindow(query, tz, req.now.getTime())
  const tree = query.filters !== undefined && isTreeText(query.filters) ? parseFilterTree(query.filters) : undefined
  const filters = query.filters === undefined ? [] : tree !== undefined ? (tree === null ? null : []) : parseFilters(query.filters)
  if (window === null || filters === null) return null
  const sessions = buildSessions(req.events.map(normalize))
  const kept = windowSessions(sessions, { ...splitFilters(filters), ...(tree ? { tree } : {}) }, window)
  kept.sort((a, b) => b.start - a.start || compareBytes(b.id, a.id))
  return kept.map((s) => ({
    id: s.id,
    profileId: s.first.profile_id,
    startedAt: formatInstant(tz, s.start),
    endedAt: formatInstant(tz, s.end),
    duration: s.durationMs / 1000,
    screenViews: s.pageViews.length,
    events: s.events.length,
    bounce: s.bounce,
    entryOrigin: s.first.cols.origin,
    entryPath: s.first.cols.path,
    exitOrigin: s.exit ? s.exit.cols.origin : null,
    exitPath: s.exit ? s.exit.cols.path : null,
    referrer: s.first.cols.referrer,
    referrerName: s.first.cols.referrer_name,
    referrerType: s.first.cols.referrer_type,
    utmSource: s.first.cols.utm_source,
    utmMedium: s.first.cols.utm_medium,
    utmCampaign: s.first.cols.utm_campaign,
    utmTerm: s.first.cols.utm_term,
    utmContent: s.first.cols.utm_content,
    country: s.first.cols.country,
    region: s.first.cols.region,
    city: s.first.cols.city,
    device: s.first.cols.device,
    browser: s.first.cols.browser,
    os: s.first.cols.os,
  }))
}
