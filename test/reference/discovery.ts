// Reference model of the discovery endpoints (`/events/names`, `/events/properties`,
// `/events/property_values`), read straight from their definition over raw event rows: no summaries, no
// hours or days, nothing shared with the gateway. Clarity over speed.

import { compareBytes } from './exact'
import { normalize, parseIntegerParam, resolveWindow, type ModelAnswer, type RawEvent } from './model'
import { formatInstant, isValidTimeZone } from './time'

export const DISCOVERY_RESOURCES = ['names', 'properties', 'property_values'] as const
export type DiscoveryResource = (typeof DISCOVERY_RESOURCES)[number]

export interface DiscoveryRequest {
  events: RawEvent[]
  projectTimezone: string
  resource: DiscoveryResource
  /** The URL query, as strings. */
  query: Record<string, string>
  now: Date
  /** `properties` only: a row per key and event name, by key then name (OpenPanel's key list), not per key by events. */
  pairs?: boolean
}

const COMMON = ['startDate', 'endDate', 'range', 'timezone', 'search', 'cursor', 'limit']
const ALLOWED: Record<DiscoveryResource, string[]> = {
  names: COMMON,
  properties: [...COMMON, 'event'],
  property_values: [...COMMON, 'event', 'key'],
}

const BAD_REQUEST: ModelAnswer = { status: 400, body: null, next: false }

/** Characters (code points) of a text, as a length limit counts them. */
const length = (text: string) => [...text].length

/** One counted row: its text and its events. */
interface Counted {
  text: string
  count: number
  last: number
}

/** Rows per text, counting one per (text, time) item: an event under its name, each of its keys, or its value. */
function tally(items: { text: string; t: number }[]): Counted[] {
  const rows = new Map<string, Counted>()
  for (const { text, t } of items) {
    const row = rows.get(text) ?? { text, count: 0, last: -Infinity }
    row.count += 1
    row.last = Math.max(row.last, t)
    rows.set(text, row)
  }
  return [...rows.values()]
}

export function answerDiscovery(req: DiscoveryRequest): ModelAnswer {
  const { query, resource } = req
  for (const name of Object.keys(query)) if (!ALLOWED[resource].includes(name)) return BAD_REQUEST
  const tz = query.timezone ?? req.projectTimezone
  if (!isValidTimeZone(tz)) return BAD_REQUEST
  const window = resolveWindow(query, tz, req.now.getTime())
  const limit = query.limit === undefined ? 10 : parseIntegerParam(query.limit)
  const cursor = query.cursor === undefined ? 1 : parseIntegerParam(query.cursor)
  const search = query.search ?? ''
  const event = query.event
  // A key is named bare (`price`) or as filters name it (`properties.price`); `properties.` alone names none.
  const key = query.key?.startsWith('properties.') ? query.key.slice('properties.'.length) : query.key
  if (window === null || limit === null || cursor === null) return BAD_REQUEST
  if (limit < 1 || limit > 1000 || cursor < 1 || cursor > 1_000_000) return BAD_REQUEST
  if (length(search) > 200) return BAD_REQUEST
  if (event !== undefined && (length(event) < 1 || length(event) > 200)) return BAD_REQUEST
  if (resource === 'property_values' && (query.key === undefined || length(query.key) > 200 || key === undefined || length(key) < 1))
    return BAD_REQUEST

  // The window's events (start inclusive, end exclusive), of the asked name if any.
  const inWindow = req.events
    .map(normalize)
    .filter((e) => e.t >= window.start && e.t < window.end && (event === undefined || e.name === event))
  const needle = search.toLowerCase()
  const from = (cursor - 1) * limit
  if (req.pairs) {
    const pairs = tally(inWindow.flatMap((e) => Object.keys(e.properties).map((k) => ({ text: JSON.stringify([k, e.name]), t: e.t }))))
      .map((row) => ({ pair: JSON.parse(row.text) as [string, string], count: row.count }))
      .filter(({ pair }) => pair[0].toLowerCase().includes(needle))
      .sort((a, b) => compareBytes(a.pair[0], b.pair[0]) || compareBytes(a.pair[1], b.pair[1]))
    const body = pairs.slice(from, from + limit).map(({ pair, count }) => ({ property_key: pair[0], event_name: pair[1], count }))
    return { status: 200, body, next: pairs.length > from + limit }
  }
  const items =
    resource === 'names'
      ? inWindow.map((e) => ({ text: e.name, t: e.t }))
      : resource === 'properties'
        ? inWindow.flatMap((e) => Object.keys(e.properties).map((k) => ({ text: k, t: e.t })))
        : inWindow.filter((e) => Object.hasOwn(e.properties, key as string)).map((e) => ({ text: e.properties[key as string], t: e.t }))
  const rows = tally(items)
  const ranked = rows
    .filter((row) => row.text.toLowerCase().includes(needle))
    .sort((a, b) => b.count - a.count || compareBytes(a.text, b.text))
  const body = ranked.slice(from, from + limit).map((row) => {
    if (resource === 'names') return { name: row.text, count: row.count, lastSeen: formatInstant(tz, row.last) }
    if (resource === 'properties') return { key: `properties.${row.text}`, count: row.count }
    return { value: row.text, count: row.count }
  })
  return { status: 200, body, next: ranked.length > from + limit }
}
