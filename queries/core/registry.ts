// Closed registries: the only identifiers that ever reach SQL. A request names an entry; the column
// comes from here.

/** How a session field is taken from its events. */
export interface SessionFieldSpec {
  /** Its column type in `sessions` and, as `s_<name>`, in a combined session's row. */
  type: 'String' | 'LowCardinality(String)'
  /** The `events` column it is the value of, when it is not its own name. */
  event?: string
  /**
   * Whose value it is: the session's first event's (an attribute, a filter and breakdown; by default), or
   * its last page view's (an exit: none without a page view; not a filter).
   */
  from?: 'last_view'
}

/**
 * THE list of a session's fields: every column the partial rows of `sessions` carry for them, and every
 * `s_` column of a combined session (the sessions wing's) and of a regrouped one, is generated from it
 * (queries/sessions/session-fields.ts): the view and its table, the compaction's build and the import's rebuild
 * of partial rows. Adding a field here (and to its test) is the whole change for a new directory; an existing
 * directory needs a migration that adds its column to `sessions` and rewrites the view's select
 * (docs/design/sessions.md). The combined tables follow by their definition's version.
 */
export const SESSION_FIELDS = {
  referrer: { type: 'String' },
  referrer_name: { type: 'LowCardinality(String)' },
  referrer_type: { type: 'LowCardinality(String)' },
  utm_source: { type: 'LowCardinality(String)' },
  utm_medium: { type: 'LowCardinality(String)' },
  utm_campaign: { type: 'LowCardinality(String)' },
  utm_term: { type: 'String' },
  utm_content: { type: 'String' },
  country: { type: 'LowCardinality(String)' },
  region: { type: 'LowCardinality(String)' },
  city: { type: 'LowCardinality(String)' },
  device: { type: 'LowCardinality(String)' },
  brand: { type: 'LowCardinality(String)' },
  model: { type: 'LowCardinality(String)' },
  browser: { type: 'LowCardinality(String)' },
  browser_version: { type: 'LowCardinality(String)' },
  os: { type: 'LowCardinality(String)' },
  os_version: { type: 'LowCardinality(String)' },
  entry_origin: { type: 'LowCardinality(String)', event: 'origin' },
  entry_path: { type: 'String', event: 'path' },
  exit_origin: { type: 'LowCardinality(String)', event: 'origin', from: 'last_view' },
  exit_path: { type: 'String', event: 'path', from: 'last_view' },
} as const satisfies Record<string, SessionFieldSpec>
export type SessionField = keyof typeof SESSION_FIELDS

type FieldsFrom<From> = { [K in SessionField]: (typeof SESSION_FIELDS)[K] extends { from: From } ? K : never }[SessionField]
/** A session attribute: a field of the session's first event, a filter and a breakdown. */
export type SessionAttribute = Exclude<SessionField, FieldsFrom<'last_view'>>
/** A session's exit page: a field of its last page view, combined by the latest view (`last_view_key`). Not a filter. */
export type SessionExit = FieldsFrom<'last_view'>

const FIELD_NAMES = Object.keys(SESSION_FIELDS) as SessionField[]
const isExitField = (field: SessionField) => (SESSION_FIELDS[field] as SessionFieldSpec).from === 'last_view'
const columnsOf = <K extends string>(names: K[]) => Object.fromEntries(names.map((name) => [name, name])) as { readonly [N in K]: N }

/** Session attributes: the session's first event's values, columns of `sessions` (each its own name). */
export const SESSION_ATTRIBUTES = columnsOf(FIELD_NAMES.filter((field): field is SessionAttribute => !isExitField(field)))

/** The exit page's fields, columns of `sessions` (each its own name). */
export const SESSION_EXITS = columnsOf(FIELD_NAMES.filter((field): field is SessionExit => isExitField(field)))

export const isSessionExit = (name: string): name is SessionExit => Object.hasOwn(SESSION_EXITS, name)

/** Session attributes that are not columns of `events` under their own name (the entry page): only on sessions. */
export const SESSION_ONLY_ATTRIBUTES: readonly SessionAttribute[] = (Object.keys(SESSION_ATTRIBUTES) as SessionAttribute[]).filter(
  (field) => (SESSION_FIELDS[field] as SessionFieldSpec).event !== undefined,
)

/** A session field's column in a combined or regrouped session's row (queries/sessions/): `s_<field>`. */
export const sessionColumn = (field: SessionField): string => `s_${field}`

/**
 * The text columns of `events` an event may carry or leave empty, beside its id, name, device, session and
 * project: what an import row may name, and what an answered event shows.
 */
export const EVENT_TEXT_COLUMNS = [
  'profile_id',
  'path',
  'origin',
  'title',
  'referrer',
  'referrer_name',
  'referrer_type',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'country',
  'region',
  'city',
  'device',
  'brand',
  'model',
  'browser',
  'browser_version',
  'os',
  'os_version',
  'sdk_name',
  'sdk_version',
] as const

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
