// The reference model of OpenPanel's analytics routes (docs/definitions.md, "OpenPanel's analytics routes"):
// OpenPanel's parameters mapped onto the model's own answers (metrics, pages, breakdowns, export rows), and
// rolling active users, engagement and page minutes computed here from the raw events; `compare` by the
// compare model's answer of the same base question (test/reference/compare.ts). Independent of the gateway.
import { answerCompared } from './compare'
import { exportRows } from './export'
import {
  answerInsights,
  buildSessions,
  normalize,
  parseIntegerParam,
  resolveWindow,
  withOpenPanelWindow,
  type ModelAnswer,
  type RawEvent,
} from './model'
import { addDays, formatInstant, isValidTimeZone, localDate, type CivilDate } from './time'

export const OPENPANEL_RESOURCES = [
  'overview',
  'active_users',
  'pages/top',
  'pages/performance',
  'traffic/referrers',
  'traffic/geo',
  'traffic/devices',
  'engagement',
  'events',
] as const
export type OpenPanelResource = (typeof OPENPANEL_RESOURCES)[number]

export interface OpenPanelRequest {
  events: RawEvent[]
  projectId: string
  projectTimezone: string
  resource: OpenPanelResource
  query: Record<string, string>
  now: Date
}

const BAD_REQUEST: ModelAnswer = { status: 400, body: null, next: false }
const TRAFFIC: Record<string, string[]> = {
  'traffic/referrers': ['referrer_name', 'referrer_type', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign'],
  'traffic/geo': ['country', 'region', 'city'],
  'traffic/devices': ['device', 'browser', 'os'],
}

const pad = (n: number) => String(n).padStart(2, '0')
const civilText = (c: CivilDate) => `${c.y}-${pad(c.m)}-${pad(c.d)}`

/** A limit within [1, most], `fallback` when absent; null when invalid. */
function limitOf(query: Record<string, string>, fallback: number, most: number): number | null {
  if (query.limit === undefined) return fallback
  const limit = parseIntegerParam(query.limit)
  return limit === null || limit < 1 || limit > most ? null : limit
}

const zoneOf = (req: OpenPanelRequest) => req.query.timezone ?? req.projectTimezone

export function answerOpenPanel(req: OpenPanelRequest): ModelAnswer {
  const tz = zoneOf(req)
  if (!isValidTimeZone(tz)) return BAD_REQUEST
  const now = req.now.getTime()
  const insights = (resource: string, query: Record<string, string>) =>
    answerInsights({ events: req.events, projectTimezone: req.projectTimezone, resource, query, now: req.now })
  const query = withOpenPanelWindow(req.query, tz, now)
  // The base route's answer, compared when the request asks `compare`.
  const based = (resource: string, asked: Record<string, string>) =>
    asked.compare === undefined
      ? insights(resource, asked)
      : answerCompared({ events: req.events, projectTimezone: req.projectTimezone, resource, query: asked, now: req.now })
  switch (req.resource) {
    case 'overview': {
      const interval = query.interval ?? 'day'
      if (!['hour', 'day', 'week', 'month'].includes(interval)) return BAD_REQUEST
      const answer = based('metrics', { ...query, interval })
      if (answer.status !== 200) return answer
      const window = resolveWindow(query, tz, now) as { start: number; end: number }
      const { metrics, previous, change, series } = answer.body as Record<string, object>
      // Compared, `/metrics`' totals' `previous` and `change` go into `summary`.
      const summary = query.compare === undefined ? metrics : { ...metrics, previous, change }
      return {
        status: 200,
        body: { summary, series, interval, startDate: formatInstant(tz, window.start), endDate: formatInstant(tz, window.end) },
        next: false,
      }
    }
    case 'pages/top': {
      const limit = limitOf(query, 1000, 1000)
      return limit === null ? BAD_REQUEST : based('pages', { ...query, limit: String(limit) })
    }
    case 'pages/performance':
      return pagePerformance(req, query)
    case 'traffic/referrers':
    case 'traffic/geo':
    case 'traffic/devices': {
      const { breakdown, ...rest } = query
      const offered = TRAFFIC[req.resource]
      const limit = limitOf(rest, 1000, 1000)
      if (limit === null || (breakdown !== undefined && !offered.includes(breakdown))) return BAD_REQUEST
      return based(breakdown ?? offered[0], { ...rest, limit: String(limit) })
    }
    case 'active_users':
      return activeUsers(req, query)
    case 'engagement':
      return engagement(req)
    case 'events':
      return events(req, query)
  }
}

/** Every page row (sessions first), the shown ones in the order asked, minutes to the next view, OpenPanel's signals. */
function pagePerformance(req: OpenPanelRequest, query: Record<string, string>): ModelAnswer {
  if (query.cursor !== undefined) return BAD_REQUEST
  const limit = limitOf(query, 50, 500)
  if (limit === null) return BAD_REQUEST
  const all = answerInsights({
    events: req.events,
    projectTimezone: req.projectTimezone,
    resource: 'pages',
    query: { ...query, limit: '1000', cursor: '1' },
    now: req.now,
  })
  if (all.status !== 200 || all.next) return all.next ? { status: 500, body: 'model: more than 1000 pages', next: false } : all
  const ordered = answerInsights({
    events: req.events,
    projectTimezone: req.projectTimezone,
    resource: 'pages',
    query: { ...query, limit: String(limit) },
    now: req.now,
  })
  const minutes = pageMinutes(req, query)
  const rows = (
    ordered.body as { origin: string; path: string; title: string; sessions: number; pageviews: number; bounce_rate: number | null }[]
  ).map((row) => {
    const avg = minutes.get(JSON.stringify([row.origin, row.path])) ?? null
    const bounce = row.bounce_rate
    return {
      origin: row.origin,
      path: row.path,
      title: row.title,
      sessions: row.sessions,
      pageviews: row.pageviews,
      avg_duration: avg,
      bounce_rate: bounce,
      seo_signals: {
        high_bounce: bounce !== null && bounce > 70,
        low_engagement: avg === null || avg < 1,
        good_landing_page: bounce !== null && bounce < 40 && avg !== null && avg > 2,
      },
    }
  })
  return { status: 200, body: { total_pages: (all.body as unknown[]).length, shown: rows.length, pages: rows }, next: false }
}

/**
 * Per page, minutes from each of its views in the window to its session's next page view, averaged over
 * the views that have one, rounded half up to 2 decimals (requests without filters only).
 */
function pageMinutes(req: OpenPanelRequest, query: Record<string, string>): Map<string, number> {
  const window = resolveWindow(query, zoneOf(req), req.now.getTime()) as { start: number; end: number }
  const sessions = buildSessions(req.events.map(normalize))
  const gaps = new Map<string, { total: number; count: number }>()
  for (const session of sessions.values()) {
    session.pageViews.forEach((view, index) => {
      const next = session.pageViews[index + 1]
      if (!next || view.t < window.start || view.t >= window.end) return
      const key = JSON.stringify([view.cols.origin, view.cols.path])
      const sum = gaps.get(key) ?? { total: 0, count: 0 }
      gaps.set(key, { total: sum.total + (next.t - view.t), count: sum.count + 1 })
    })
  }
  return new Map([...gaps].map(([key, { total, count }]) => [key, Math.floor((200 * total + count * 60_000) / (2 * count * 60_000)) / 100]))
}

/** Each local day of the window: the distinct profiles with an event before its end on one of the `days` local days up to it. */
function activeUsers(req: OpenPanelRequest, query: Record<string, string>): ModelAnswer {
  const { startDate, endDate, range, timezone, days: daysText, ...rest } = query
  if (Object.keys(rest).length) return BAD_REQUEST
  const days = daysText === undefined ? 7 : parseIntegerParam(daysText)
  if (days === null || days < 1 || days > 90) return BAD_REQUEST
  const tz = zoneOf(req)
  const dates = Object.fromEntries(
    Object.entries({ startDate, endDate, range, timezone }).filter(([, value]) => value !== undefined),
  ) as Record<string, string>
  const window = resolveWindow(dates, tz, req.now.getTime())
  if (window === null) return BAD_REQUEST
  const active = new Map<string, Set<string>>()
  for (const event of req.events.map(normalize)) {
    if (event.t >= window.end) continue
    const day = civilText(localDate(tz, event.t))
    active.set(day, (active.get(day) ?? new Set()).add(event.profile_id))
  }
  const series: { date: string; users: number }[] = []
  const last = civilText(localDate(tz, window.end - 1))
  for (let day = localDate(tz, window.start); civilText(day) <= last; day = addDays(day, 1)) {
    const users = new Set<string>()
    for (let back = 0; back < days; back++) for (const profile of active.get(civilText(addDays(day, -back))) ?? []) users.add(profile)
    series.push({ date: civilText(day), users: users.size })
  }
  const label = { 1: 'DAU', 7: 'WAU', 30: 'MAU' }[days] ?? `${days}d active`
  return { status: 200, body: { window_days: days, label, series }, next: false }
}

/** Identified profiles (not their device id) by local days from their last event, up to now, to today. */
function engagement(req: OpenPanelRequest): ModelAnswer {
  if (Object.keys(req.query).some((key) => key !== 'timezone')) return BAD_REQUEST
  const tz = zoneOf(req)
  const now = req.now.getTime()
  const lastSeen = new Map<string, number>()
  for (const event of req.events.map(normalize)) {
    if (event.t > now || event.profile_id === event.device_id) continue
    lastSeen.set(event.profile_id, Math.max(lastSeen.get(event.profile_id) ?? event.t, event.t))
  }
  const dayNumber = (c: CivilDate) => Date.UTC(c.y, c.m - 1, c.d) / 86_400_000
  const today = dayNumber(localDate(tz, now))
  const byDays = new Map<number, number>()
  for (const t of lastSeen.values()) {
    const days = today - dayNumber(localDate(tz, t))
    byDays.set(days, (byDays.get(days) ?? 0) + 1)
  }
  const distribution = [...byDays].sort(([a], [b]) => a - b).map(([days, users]) => ({ days, users }))
  const band = (from: number, to: number) =>
    distribution.filter(({ days }) => days >= from && days <= to).reduce((sum, row) => sum + row.users, 0)
  return {
    status: 200,
    body: {
      summary: {
        total_identified_users: lastSeen.size,
        active_last_7_days: band(Number.NEGATIVE_INFINITY, 7),
        active_8_to_14_days: band(8, 14),
        active_15_to_30_days: band(15, 30),
        inactive_31_to_60_days: band(31, 60),
        churned_60_plus_days: band(61, Number.POSITIVE_INFINITY),
      },
      distribution,
    },
    next: false,
  }
}

/** The export model's rows of the window, every column by its table name, newest first, up to `limit`. */
function events(req: OpenPanelRequest, query: Record<string, string>): ModelAnswer {
  const { startDate, endDate, eventNames, limit: _limit, filters, timezone, ...equalities } = query
  const limit = limitOf(query, 20, 100)
  if (limit === null) return BAD_REQUEST
  const columns: Record<string, string> = { path: 'path', country: 'country', browser: 'browser', os: 'os', referrerName: 'referrer_name' }
  if (Object.keys(equalities).some((key) => !(key in columns))) return BAD_REQUEST
  const given = filters === undefined ? [] : (JSON.parse(filters) as unknown[])
  const all = [...Object.entries(equalities).map(([key, value]) => ({ name: columns[key], operator: 'is', value: [value] })), ...given]
  const answer = exportRows({
    events: req.events,
    profiles: [],
    projectId: req.projectId,
    projectTimezone: req.projectTimezone,
    query: {
      start: startDate,
      ...(endDate !== undefined ? { end: endDate } : {}),
      ...(eventNames !== undefined ? { event: eventNames } : {}),
      ...(all.length ? { filters: JSON.stringify(all) } : {}),
      ...(timezone !== undefined ? { timezone } : {}),
      includes: 'properties,geo,device,referrer,meta,page,revenue,groups',
    },
    now: req.now,
  })
  if (answer.status !== 200) return BAD_REQUEST
  const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
  const rows = answer.rows.slice(0, limit).map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [snake(key), value])))
  return { status: 200, body: rows, next: false }
}
