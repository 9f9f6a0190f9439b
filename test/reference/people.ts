// The reference model of the people routes (docs/definitions.md, "People"): plain TypeScript over the raw
// rows of profiles, groups and events, independent of the gateway's SQL. Differential tests compare the
// gateway's answers with these.
import type { RawEvent } from './model'

export interface ProfileVersion {
  id: string
  first_name?: string
  last_name?: string
  email?: string
  avatar?: string
  properties?: Record<string, string>
  is_external?: boolean
  groups?: string[]
  created_at: string
  last_seen_at: string
}

export interface GroupVersion {
  id: string
  type: string
  name?: string
  properties?: Record<string, string>
  created_at: string
  version: number
  deleted?: number
}

/** Texts compare as the engine compares them: by their UTF-8 bytes. */
const compareText = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
const ms = (text: string) => Date.parse(text)
const iso = (time: number) => new Date(time).toISOString().replace('Z', '+00:00')

/** A profile's columns with their defaults. */
function full(version: ProfileVersion) {
  return {
    id: version.id,
    first_name: version.first_name ?? '',
    last_name: version.last_name ?? '',
    email: version.email ?? '',
    avatar: version.avatar ?? '',
    properties: version.properties ?? {},
    is_external: version.is_external ?? true,
    groups: version.groups ?? [],
    created: ms(version.created_at),
    last_seen: ms(version.last_seen_at),
  }
}
type Profile = ReturnType<typeof full>
/**
 * Each profile as its newest version: the largest last_seen_at, of equal ones the one written last (`versions`
 * in the order they were written), as the engine's merges keep it.
 */
export function newestProfiles(versions: readonly ProfileVersion[]): Map<string, Profile> {
  const newest = new Map<string, Profile>()
  for (const version of versions.map(full)) {
    const held = newest.get(version.id)
    if (!held || version.last_seen >= held.last_seen) newest.set(version.id, version)
  }
  return newest
}

/** A profile as /profiles and /profiles/:id answer it. */
export const profileAnswer = (p: Profile, projectId: string) => ({
  id: p.id,
  first_name: p.first_name,
  last_name: p.last_name,
  email: p.email,
  avatar: p.avatar,
  properties: p.properties,
  project_id: projectId,
  is_external: p.is_external,
  created_at: iso(p.created),
  last_seen_at: iso(p.last_seen),
  groups: p.groups,
})

interface Session {
  id: string
  visitor: string
  device: string
  first: RawEvent
  start: number
  end: number
  events: number
  views: number
  revenue: number
  exit?: RawEvent
}

const eventOrder = (a: RawEvent, b: RawEvent) => ms(a.created_at) - ms(b.created_at) || compareText(a.id, b.id)

/** Sessions from their events: the first event (by time, then id) gives the visitor and attributes, the last page view the exit. */
export function sessionsOf(events: readonly RawEvent[]): Session[] {
  const bySession = new Map<string, RawEvent[]>()
  for (const event of events) bySession.set(event.session_id, [...(bySession.get(event.session_id) ?? []), event])
  return [...bySession.entries()].map(([id, list]) => {
    const sorted = [...list].sort(eventOrder)
    const views = sorted.filter((event) => event.name === 'screen_view')
    return {
      id,
      visitor: sorted[0].profile_id || sorted[0].device_id,
      device: sorted[0].device_id,
      first: sorted[0],
      start: ms(sorted[0].created_at),
      end: ms(sorted[sorted.length - 1].created_at),
      events: sorted.length,
      views: views.length,
      revenue: sorted.reduce((sum, event) => sum + (event.revenue ?? 0), 0),
      exit: views[views.length - 1],
    }
  })
}

export interface ProfilesQuestion {
  name?: string
  email?: string
  country?: string
  city?: string
  device?: string
  browser?: string
  inactiveDays?: number
  minSessions?: number
  performedEvent?: string
  filters?: { name: string; operator: string; value?: string[] }[]
  sortOrder?: 'asc' | 'desc'
}

const holds = (text: string, part: string) => text.toLowerCase().includes(part.toLowerCase())

function passes(filter: NonNullable<ProfilesQuestion['filters']>[number], p: Profile): boolean {
  const text = filter.name.startsWith('properties.')
    ? (p.properties[filter.name.slice('properties.'.length)] ?? '')
    : String(p[filter.name as 'id' | 'email' | 'first_name' | 'last_name'])
  const values = filter.value ?? []
  switch (filter.operator) {
    case 'is':
      return values.includes(text)
    case 'isNot':
      return !values.includes(text)
    case 'contains':
      return values.some((value) => holds(text, value))
    case 'doesNotContain':
      return !values.some((value) => holds(text, value))
    case 'startsWith':
      return values.some((value) => text.toLowerCase().startsWith(value.toLowerCase()))
    case 'endsWith':
      return values.some((value) => text.toLowerCase().endsWith(value.toLowerCase()))
    case 'isNull':
      return text === ''
    default:
      return text !== ''
  }
}

/** Every profile /profiles keeps, in its order (creation time, then id, in `sortOrder`). */
export function answerProfiles(
  data: { profiles: readonly ProfileVersion[]; events: readonly RawEvent[]; projectId: string; now: Date },
  question: ProfilesQuestion,
) {
  const sessions = sessionsOf(data.events)
  const tokens = (question.name ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 5)
  const kept = [...newestProfiles(data.profiles).values()].filter((p) => {
    if (question.email && !holds(p.email, question.email)) return false
    const names = [p.id, p.email, p.first_name, p.last_name, `${p.first_name} ${p.last_name}`]
    if (!tokens.every((token) => names.some((name) => holds(name, token)))) return false
    for (const key of ['country', 'city', 'device', 'browser'] as const)
      if (question[key] && (p.properties[key] ?? '') !== question[key]) return false
    if (question.inactiveDays !== undefined) {
      const since = data.now.getTime() - question.inactiveDays * 86_400_000
      if (data.events.some((event) => (event.profile_id || event.device_id) === p.id && ms(event.created_at) >= since)) return false
    }
    if (question.minSessions !== undefined && sessions.filter((s) => s.visitor === p.id).length < question.minSessions) return false
    if (question.performedEvent && !data.events.some((e) => (e.profile_id || e.device_id) === p.id && e.name === question.performedEvent))
      return false
    return (question.filters ?? []).every((filter) => passes(filter, p))
  })
  const direction = question.sortOrder === 'asc' ? 1 : -1
  kept.sort((a, b) => direction * (a.created - b.created || compareText(a.id, b.id)))
  return kept.map((p) => profileAnswer(p, data.projectId))
}

/** A profile's sessions, newest start first (ties by id, descending), as /profiles/:id/sessions answers them. */
export function answerProfileSessions(data: { events: readonly RawEvent[]; projectId: string }, profileId: string) {
  return sessionsOf(data.events)
    .filter((s) => s.visitor === profileId)
    .sort((a, b) => b.start - a.start || compareText(b.id, a.id))
    .map((s) => ({
      id: s.id,
      profile_id: s.visitor,
      event_count: s.events,
      screen_view_count: s.views,
      entry_path: s.first.path ?? '',
      entry_origin: s.first.origin ?? '',
      exit_path: s.exit?.path ?? '',
      exit_origin: s.exit?.origin ?? '',
      created_at: iso(s.start),
      ended_at: iso(s.end),
      referrer: s.first.referrer ?? '',
      referrer_name: s.first.referrer_name ?? '',
      referrer_type: s.first.referrer_type ?? '',
      os: s.first.os ?? '',
      os_version: s.first.os_version ?? '',
      browser: s.first.browser ?? '',
      browser_version: s.first.browser_version ?? '',
      device: s.first.device ?? '',
      brand: s.first.brand ?? '',
      model: s.first.model ?? '',
      country: s.first.country ?? '',
      region: s.first.region ?? '',
      city: s.first.city ?? '',
      is_bounce: s.views <= 1,
      project_id: data.projectId,
      device_id: s.device,
      duration: s.end - s.start,
      utm_medium: s.first.utm_medium ?? '',
      utm_source: s.first.utm_source ?? '',
      utm_campaign: s.first.utm_campaign ?? '',
      utm_content: s.first.utm_content ?? '',
      utm_term: s.first.utm_term ?? '',
      revenue: s.revenue,
    }))
}

/** Rounded to `digits` decimals as the engine rounds a Float64: scaled, to the nearest integer, a tie to the even one. */
const round = (value: number, digits: number) => {
  const scale = 10 ** digits
  const scaled = value * scale
  const nearest = Math.abs(scaled % 1) === 0.5 ? 2 * Math.round(scaled / 2) : Math.round(scaled)
  return nearest / scale
}

/** The exact inclusive quantile: linear between the sorted values around position (n - 1) x level. */
function quantileInclusive(values: number[], level: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * level
  const below = Math.floor(position)
  const above = Math.min(below + 1, sorted.length - 1)
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below)
}

/** A profile's metrics as /profiles/:id/metrics answers them. */
export function answerProfileMetrics(data: { profiles: readonly ProfileVersion[]; events: readonly RawEvent[] }, profileId: string) {
  const profile = newestProfiles(data.profiles).get(profileId)
  const events = data.events.filter((event) => (event.profile_id || event.device_id) === profileId)
  const sessions = sessionsOf(data.events).filter((s) => s.visitor === profileId)
  const durations = sessions.map((s) => s.end - s.start).filter((duration) => duration > 0)
  const starts = sessions.map((s) => s.start)
  const count = sessions.length
  return {
    profileId,
    firstSeen: profile ? iso(profile.created) : null,
    lastSeen: profile ? iso(profile.last_seen) : null,
    sessions: count,
    screenViews: events.filter((event) => event.name === 'screen_view').length,
    totalEvents: events.length,
    conversionEvents: events.filter((event) => !['screen_view', 'session_start', 'session_end'].includes(event.name)).length,
    uniqueDaysActive: new Set(events.map((event) => event.created_at.slice(0, 10))).size,
    avgSessionDurationMin: durations.length ? round(durations.reduce((a, b) => a + b, 0) / durations.length / 60_000, 2) : 0,
    p90SessionDurationMin: durations.length ? round(quantileInclusive(durations, 0.9) / 60_000, 2) : 0,
    avgEventsPerSession: count ? round(events.length / count, 2) : null,
    avgTimeBetweenSessionsSec: count <= 1 ? 0 : round((Math.max(...starts) - Math.min(...starts)) / 1000 / (count - 1), 1),
    bounceRate: count ? round((100 * sessions.filter((s) => s.views <= 1).length) / count, 2) : 0,
    revenue: events.reduce((sum, event) => sum + (event.revenue ?? 0), 0),
  }
}

/**
 * Each group as its newest version (the largest `version`, of equal ones the one written last: `versions` in
 * the order they were written), deleted ones left out.
 */
export function newestGroups(versions: readonly GroupVersion[]): Required<GroupVersion>[] {
  const newest = new Map<string, Required<GroupVersion>>()
  for (const version of versions) {
    const g = { name: '', properties: {}, deleted: 0, ...version }
    const held = newest.get(g.id)
    if (!held || g.version >= held.version) newest.set(g.id, g)
  }
  return [...newest.values()].filter((g) => g.deleted === 0)
}

export const groupAnswer = (g: Required<GroupVersion>, projectId: string) => ({
  id: g.id,
  projectId,
  type: g.type,
  name: g.name,
  properties: g.properties,
  createdAt: iso(ms(g.created_at)),
  updatedAt: iso(g.version),
})

/** /groups: newest created first (ties by id, descending), by type and search. */
export function answerGroups(groups: readonly GroupVersion[], projectId: string, question: { type?: string; search?: string }) {
  return newestGroups(groups)
    .filter((g) => !question.type || g.type === question.type)
    .filter((g) => !question.search || holds(g.name, question.search) || holds(g.id, question.search))
    .sort((a, b) => ms(b.created_at) - ms(a.created_at) || compareText(b.id, a.id))
    .map((g) => groupAnswer(g, projectId))
}

export function answerGroupTypes(groups: readonly GroupVersion[]) {
  return { types: [...new Set(newestGroups(groups).map((g) => g.type))].sort(compareText) }
}

/** /groups/:id: the group, its members (profiles whose newest version lists it), newest created first; undefined when unknown. */
export function answerGroup(
  data: { groups: readonly GroupVersion[]; profiles: readonly ProfileVersion[]; projectId: string },
  groupId: string,
  memberLimit: number,
) {
  const found = newestGroups(data.groups).find((g) => g.id === groupId)
  if (!found) return undefined
  const members = [...newestProfiles(data.profiles).values()]
    .filter((p) => p.groups.includes(groupId))
    .sort((a, b) => b.created - a.created || compareText(b.id, a.id))
  return {
    group: groupAnswer(found, data.projectId),
    member_count: members.length,
    members: members.slice(0, memberLimit).map((p) => ({
      id: p.id,
      email: p.email,
      avatar: p.avatar,
      firstName: p.first_name,
      lastName: p.last_name,
      createdAt: iso(p.created),
      lastSeenAt: iso(p.last_seen),
      isExternal: p.is_external,
      projectId: data.projectId,
      groups: p.groups,
      properties: p.properties,
    })),
  }
}
