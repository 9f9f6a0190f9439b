// Closed registries: the only identifiers that ever reach SQL. A request names an entry; the column
// comes from here.

/** Session attributes: the session's first event's values, columns of `sessions`. */
export const SESSION_ATTRIBUTES = {
  referrer: 'referrer',
  referrer_name: 'referrer_name',
  referrer_type: 'referrer_type',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
  utm_term: 'utm_term',
  utm_content: 'utm_content',
  country: 'country',
  region: 'region',
  city: 'city',
  device: 'device',
  brand: 'brand',
  model: 'model',
  browser: 'browser',
  browser_version: 'browser_version',
  os: 'os',
  os_version: 'os_version',
  entry_origin: 'entry_origin',
  entry_path: 'entry_path',
} as const satisfies Record<string, string>
export type SessionAttribute = keyof typeof SESSION_ATTRIBUTES

/**
 * A session's exit page: the origin and path of its last page view (none without one), columns of `sessions`
 * that partial rows combine by their latest view (`last_view_key`), not by the first event. Not filters.
 */
export const SESSION_EXITS = {
  exit_origin: 'exit_origin',
  exit_path: 'exit_path',
} as const satisfies Record<string, string>
export type SessionExit = keyof typeof SESSION_EXITS

/** A column a combined or regrouped session's row carries: a session attribute or its exit page. */
export type SessionField = SessionAttribute | SessionExit

export const isSessionExit = (name: string): name is SessionExit => Object.hasOwn(SESSION_EXITS, name)

/** A session field's column in a combined or regrouped session's row (`sessions_settled`): `s_<column>`. */
export const sessionColumn = (field: SessionField): string => `s_${isSessionExit(field) ? SESSION_EXITS[field] : SESSION_ATTRIBUTES[field]}`

/** Event fields filterable by name (plus `properties.<key>`), columns of `events`. */
export const EVENT_FIELDS = { name: 'name', path: 'path', origin: 'origin', title: 'title' } as const satisfies Record<string, string>
export type EventField = keyof typeof EVENT_FIELDS

export interface DimensionSpec {
  column: SessionAttribute
  prefix?: SessionAttribute
}

/** The breakdown resources: one shared template, one entry each. */
export const DIMENSIONS = {
  referrer: { column: 'referrer' },
  referrer_name: { column: 'referrer_name' },
  referrer_type: { column: 'referrer_type' },
  utm_source: { column: 'utm_source' },
  utm_medium: { column: 'utm_medium' },
  utm_campaign: { column: 'utm_campaign' },
  utm_term: { column: 'utm_term' },
  utm_content: { column: 'utm_content' },
  country: { column: 'country' },
  region: { column: 'region', prefix: 'country' },
  city: { column: 'city', prefix: 'country' },
  device: { column: 'device' },
  brand: { column: 'brand' },
  model: { column: 'model' },
  browser: { column: 'browser' },
  browser_version: { column: 'browser_version', prefix: 'browser' },
  os: { column: 'os' },
  os_version: { column: 'os_version', prefix: 'os' },
} as const satisfies Record<string, DimensionSpec>
export type Dimension = keyof typeof DIMENSIONS

/** A breakdown as SQL over session rows: its name as text, its prefix column ('' without one) and its value column. */
export function breakdownSql(name: Dimension): { name: string; prefix: string; value: string } {
  const { column, prefix }: DimensionSpec = DIMENSIONS[name]
  return { name: `'${name}'`, prefix: prefix ? sessionColumn(prefix) : "''", value: sessionColumn(column) }
}

export const isSessionAttribute = (name: string): name is SessionAttribute => Object.hasOwn(SESSION_ATTRIBUTES, name)
export const isEventField = (name: string): name is EventField => Object.hasOwn(EVENT_FIELDS, name)

/** `properties.<key>` names a property of the event's `properties` map; the key, or undefined for any other name. */
export function propertyKeyOf(name: string): string | undefined {
  const prefix = 'properties.'
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : undefined
}
