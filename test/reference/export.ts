// Reference model of `GET /export/events` (docs/definitions.md, "Export events").
//
// Plain TypeScript over raw event and profile rows. It shares no code with the gateway (nothing from
// server/ or queries/) and never touches ClickHouse. Paging (limit/cursor/page) and the output format
// are left to the caller: this model gives every matching row, in export order.

import { compareBytes } from './exact'
import { type Filter, matchValue, parseFilters } from './filters'
import { type Ev, eventField, normalize, parseEventTime, parseQueryDate, type RawEvent } from './model'
import { formatInstant, isValidTimeZone } from './time'

export interface RawProfile {
  id: string
  project_id: string
  first_name?: string
  last_name?: string
  email?: string
  avatar?: string
  properties?: Record<string, string>
  created_at: string
  last_seen_at: string
}

export interface ExportModelRequest {
  events: RawEvent[]
  profiles: RawProfile[]
  projectId: string
  projectTimezone: string
  query: Record<string, string | string[]>
  now: Date
}

export const EXPORT_INCLUDES = ['geo', 'device', 'referrer', 'meta', 'properties', 'profile', 'page', 'revenue', 'groups'] as const
export type ExportInclude = (typeof EXPORT_INCLUDES)[number]

/** Parameters this model reads. */
const MODEL_PARAMS = ['event', 'profileId', 'start', 'end', 'filters', 'includes', 'timezone']
/** Parameters the caller drives itself (paging, format, project); accepted and ignored here. */
const CALLER_PARAMS = ['limit', 'cursor', 'page', 'format', 'projectId', 'project_id']
/** Parameters that may be repeated (and/or comma-separated). */
const LIST_PARAMS = ['event', 'includes']

/** Filter names that describe sessions only; an exported event has no such column. */
const SESSION_ONLY_FILTERS = ['entry_origin', 'entry_path']

const BAD_REQUEST = { status: 400, rows: [] as Record<string, unknown>[] }

/** A repeated and/or comma-separated list: every piece trimmed, empty pieces dropped. */
function listParam(value: string | string[] | undefined): string[] {
  if (value === undefined) return []
  const items = Array.isArray(value) ? value : [value]
  return items
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '')
}

/** Parses `filters` for export: the insights filters, minus entry_origin / entry_path. null = 400. */
export function parseRowFilters(text: string): Filter[] | null {
  const filters = parseFilters(text)
  if (filters === null) return null
  if (filters.some((f) => SESSION_ONLY_FILTERS.includes(f.name))) return null
  return filters
}

/** A filter on the event row's own columns (session-attribute names read the event's column). */
export function rowMatches(e: Ev, filters: Filter[]): boolean {
  return filters.every((f) => matchValue(f, eventField(e, f.name)))
}

/** ISO 8601 in UTC with milliseconds and `+00:00`. */
function isoUtc(t: number): string {
  return formatInstant('UTC', t)
}

interface ProfileOut {
  id: string
  firstName: string
  lastName: string
  email: string
  avatar: string
  properties: Record<string, string>
  createdAt: string
  lastSeenAt: string
}

/** The profile shown for `id`: fields of the latest version, createdAt the earliest of all versions. */
function profileFor(profiles: RawProfile[], projectId: string, id: string): ProfileOut | null {
  const versions = profiles.filter((p) => p.project_id === projectId && p.id === id)
  if (versions.length === 0) return null
  let latest = versions[0]
  let latestSeen = parseEventTime(latest.last_seen_at)
  let earliestCreated = parseEventTime(latest.created_at)
  for (const v of versions.slice(1)) {
    const seen = parseEventTime(v.last_seen_at)
    if (seen > latestSeen) {
      latest = v
      latestSeen = seen
    }
    earliestCreated = Math.min(earliestCreated, parseEventTime(v.created_at))
  }
  return {
    id: latest.id,
    firstName: latest.first_name ?? '',
    lastName: latest.last_name ?? '',
    email: latest.email ?? '',
    avatar: latest.avatar ?? '',
    properties: { ...(latest.properties ?? {}) },
    createdAt: isoUtc(earliestCreated),
    lastSeenAt: isoUtc(latestSeen),
  }
}

/** Every matching row in export order, each exactly as the JSON API shows it (base fields + includes). */
export function exportRows(req: ExportModelRequest): { status: number; rows: Record<string, unknown>[] } {
  const { query } = req

  // Unknown parameters are a 400; single-valued parameters may not be repeated.
  for (const [key, value] of Object.entries(query)) {
    if (!MODEL_PARAMS.includes(key) && !CALLER_PARAMS.includes(key)) return BAD_REQUEST
    if (MODEL_PARAMS.includes(key) && !LIST_PARAMS.includes(key) && Array.isArray(value)) return BAD_REQUEST
  }
  const single = (key: string): string | undefined => query[key] as string | undefined

  const tz = single('timezone') ?? req.projectTimezone
  if (!isValidTimeZone(tz)) return BAD_REQUEST

  const startText = single('start')
  const endText = single('end')
  const start = startText === undefined ? null : parseQueryDate(startText, tz, false)
  const end = endText === undefined ? null : parseQueryDate(endText, tz, true)
  if (startText !== undefined && start === null) return BAD_REQUEST
  if (endText !== undefined && end === null) return BAD_REQUEST
  if (start !== null && end !== null && start >= end) return BAD_REQUEST

  const filtersText = single('filters')
  const filters = filtersText === undefined ? [] : parseRowFilters(filtersText)
  if (filters === null) return BAD_REQUEST

  const includeList = listParam(query.includes)
  if (includeList.some((name) => !(EXPORT_INCLUDES as readonly string[]).includes(name))) return BAD_REQUEST
  const includes = new Set(includeList as ExportInclude[])

  const names = listParam(query.event)
  const profileId = single('profileId')
  if (profileId === '') return BAD_REQUEST

  const rows = req.events
    .filter((raw) => (raw.project_id ?? req.projectId) === req.projectId)
    .map((raw) => ({ raw, e: normalize(raw) }))
    .filter(({ e }) => {
      if (start !== null && e.t < start) return false
      if (end !== null && e.t >= end) return false
      if (names.length > 0 && !names.includes(e.name)) return false
      if (profileId !== undefined && e.profile_id !== profileId) return false
      return rowMatches(e, filters)
    })
    // created_at descending, then the lowercase id text descending (bytewise)
    .sort((a, b) => b.e.t - a.e.t || compareBytes(b.e.idText, a.e.idText))

  const profileCache = new Map<string, ProfileOut | null>()
  const out = rows.map(({ raw, e }) => {
    const row: Record<string, unknown> = {
      id: e.idText,
      name: e.name,
      deviceId: e.device_id,
      profileId: e.profile_id,
      sessionId: e.session_id,
      projectId: raw.project_id ?? req.projectId,
      createdAt: formatInstant(tz, e.t),
      path: e.cols.path,
      duration: raw.duration ?? 0,
      city: e.cols.city,
      country: e.cols.country,
      os: e.cols.os,
      browser: e.cols.browser,
    }
    if (includes.has('geo')) {
      row.region = e.cols.region
      row.latitude = raw.latitude ?? null
      row.longitude = raw.longitude ?? null
    }
    if (includes.has('device')) {
      row.device = e.cols.device
      row.brand = e.cols.brand
      row.model = e.cols.model
      row.osVersion = e.cols.os_version
      row.browserVersion = e.cols.browser_version
    }
    if (includes.has('referrer')) {
      row.referrer = e.cols.referrer
      row.referrerName = e.cols.referrer_name
      row.referrerType = e.cols.referrer_type
      row.utmSource = e.cols.utm_source
      row.utmMedium = e.cols.utm_medium
      row.utmCampaign = e.cols.utm_campaign
      row.utmTerm = e.cols.utm_term
      row.utmContent = e.cols.utm_content
    }
    if (includes.has('meta')) {
      row.sdkName = raw.sdk_name ?? ''
      row.sdkVersion = raw.sdk_version ?? ''
      row.importedAt = raw.imported_at === undefined || raw.imported_at === null ? null : isoUtc(parseEventTime(raw.imported_at))
    }
    if (includes.has('properties')) row.properties = { ...e.properties }
    if (includes.has('page')) {
      row.origin = e.cols.origin
      row.title = e.cols.title
    }
    if (includes.has('revenue')) row.revenue = raw.revenue ?? 0
    if (includes.has('groups')) row.groups = [...(raw.groups ?? [])]
    if (includes.has('profile')) {
      if (!profileCache.has(e.profile_id)) profileCache.set(e.profile_id, profileFor(req.profiles, req.projectId, e.profile_id))
      row.profile = profileCache.get(e.profile_id) ?? null
    }
    return row
  })
  return { status: 200, rows: out }
}
