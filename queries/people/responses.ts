// The people routes' answers as JSON Schemas (/openapi.json, and the tests hold real answers to them).
import { nullable, type RouteResponse, text } from '../core/responses'
import { EVENT_TEXT_COLUMNS } from '../core/registry'

const json = (schema: object): RouteResponse['content'] => ({ 'application/json': { schema } })
const object = (properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
})
const arrayOf = (item: object) => ({ type: 'array', items: item })
const utc = { type: 'string', format: 'date-time', description: 'ISO 8601, UTC' }
const count = { type: 'integer', minimum: 0 }
const textMap = { type: 'object', additionalProperties: { type: 'string' } }
const texts = arrayOf(text)

const profile = object({
  id: text,
  first_name: text,
  last_name: text,
  email: text,
  avatar: text,
  properties: textMap,
  project_id: text,
  is_external: { type: 'boolean' },
  created_at: utc,
  last_seen_at: utc,
  groups: texts,
})

const SESSION_TEXTS = [
  'id',
  'profile_id',
  'entry_path',
  'entry_origin',
  'exit_path',
  'exit_origin',
  'referrer',
  'referrer_name',
  'referrer_type',
  'os',
  'os_version',
  'browser',
  'browser_version',
  'device',
  'brand',
  'model',
  'country',
  'region',
  'city',
  'project_id',
  'device_id',
  'utm_medium',
  'utm_source',
  'utm_campaign',
  'utm_content',
  'utm_term',
]
const session = object({
  ...Object.fromEntries(SESSION_TEXTS.map((name) => [name, text])),
  event_count: count,
  screen_view_count: count,
  created_at: utc,
  ended_at: utc,
  is_bounce: { type: 'boolean' },
  duration: { type: 'integer', minimum: 0, description: 'Milliseconds from the first event to the last' },
  revenue: { type: 'integer' },
})

const EVENT_TEXTS = ['id', 'name', 'device_id', 'session_id', 'project_id', ...EVENT_TEXT_COLUMNS]
const event = object({
  ...Object.fromEntries(EVENT_TEXTS.map((name) => [name, text])),
  created_at: utc,
  latitude: nullable({ type: 'number' }),
  longitude: nullable({ type: 'number' }),
  duration: count,
  revenue: { type: 'integer' },
  groups: texts,
  properties: textMap,
})

const group = object({ id: text, projectId: text, type: text, name: text, properties: textMap, createdAt: utc, updatedAt: utc })

const member = object({
  id: text,
  email: text,
  avatar: text,
  firstName: text,
  lastName: text,
  createdAt: utc,
  lastSeenAt: utc,
  isExternal: { type: 'boolean' },
  projectId: text,
  groups: texts,
  properties: textMap,
})

export const profilesResponse: RouteResponse = {
  description: 'Profiles kept by the filters, by creation time (ties by id)',
  cacheable: true,
  paged: true,
  content: json(arrayOf(profile)),
}

export const profileResponse: RouteResponse = {
  description: "The profile's newest version and its newest events, newest first",
  content: json(object({ profile, recentEvents: arrayOf(event) })),
}

export const profileSessionsResponse: RouteResponse = {
  description: "The profile's sessions, newest start first (ties by id, descending)",
  cacheable: true,
  paged: true,
  content: json(arrayOf(session)),
}

const minutes = (description: string) => ({ type: 'number', minimum: 0, description })
export const profileMetricsResponse: RouteResponse = {
  description: "The profile's activity: its events and its sessions",
  cacheable: true,
  content: json(
    object({
      profileId: text,
      firstSeen: nullable(utc),
      lastSeen: nullable(utc),
      sessions: count,
      screenViews: count,
      totalEvents: count,
      conversionEvents: count,
      uniqueDaysActive: count,
      avgSessionDurationMin: minutes('Mean duration of the sessions longer than 0, minutes'),
      p90SessionDurationMin: minutes('90th percentile (exact, inclusive) of the same durations, minutes'),
      avgEventsPerSession: nullable({ type: 'number', minimum: 0 }),
      avgTimeBetweenSessionsSec: { type: 'number', minimum: 0 },
      bounceRate: { type: 'number', minimum: 0, maximum: 100 },
      revenue: { type: 'integer' },
    }),
  ),
}

export const groupTypesResponse: RouteResponse = {
  description: "The types of the project's groups, ascending",
  cacheable: true,
  content: json(object({ types: texts })),
}

export const groupsResponse: RouteResponse = {
  description: 'Groups, newest created first (ties by id, descending)',
  cacheable: true,
  paged: true,
  content: json(arrayOf(group)),
}

export const groupResponse: RouteResponse = {
  description: 'The group, how many profiles it has and the newest of them',
  content: json(object({ group, member_count: count, members: arrayOf(member) })),
}
