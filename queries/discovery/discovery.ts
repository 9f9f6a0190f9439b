// The discovery routes: which events, property keys and property values a project's window holds, with
// exact counts, read from the summaries the engine keeps (migrations/003_event_discovery.sql), so a
// client can build filters and funnels from what exists. `/events/names`, `/events/properties` and
// `/events/property_values`.
import type { Issue } from '../core/errors'
import { windowOrThrow } from '../core/request-window'
import { COMPARE_PROPERTY, keptKeysCondition, listCompare, type CompareHook, type CompareMode, type KeptKeys } from '../core/compare'
import { compileInner, compileTemplate, sqlOnly, type CompiledQuery, type Fragment, type Params } from '../core/compiled'
import { RANGES, formatInstant, type Range, type Window } from '../core/dates'
import { pageParams, splitPage, type Paged } from '../core/paging'
import { planSteps, toClickHouseTime, type Resource, type Row, type Scope } from '../core/pipeline'
import { propertyKeyOf } from '../core/registry'
import { checkedParams, compileSchema } from '../core/validate'
import { windowParams } from '../core/window-params'
import { splitWindow, type WindowParts } from './discovery-window'
import { quarryNames } from './openpanel-names'

/** Longest `search`, `event` or `key` text: names and keys are short; a value longer than this is no search. */
const TEXT_MAX_LENGTH = 200

const windowProperties = {
  startDate: { type: 'string' },
  endDate: { type: 'string' },
  range: { type: 'string', enum: RANGES, default: '7d' },
  timezone: { type: 'string' },
}
const pagingProperties = {
  cursor: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
  limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
}
const search = {
  type: 'string',
  maxLength: TEXT_MAX_LENGTH,
  default: '',
  description: 'Keeps the rows whose text contains this, ignoring case',
}
const event = {
  type: 'string',
  minLength: 1,
  maxLength: TEXT_MAX_LENGTH,
  description: 'Counts only events of this name (every name when absent)',
}
const key = {
  type: 'string',
  minLength: 1,
  maxLength: TEXT_MAX_LENGTH,
  description: 'The property key whose values are counted, bare (`price`) or as filters name it (`properties.price`)',
}

/** OpenPanel's names of `event` and `key`, taken beside them (queries/discovery/openpanel-names.ts). */
const eventName = { ...event, description: "OpenPanel's name of `event`; both given must be equal" }
const propertyKey = { ...key, description: "OpenPanel's name of `key`; both given must be equal" }

const schemaOf = (own: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  additionalProperties: false,
  ...(required.length ? { required } : {}),
  properties: { ...windowProperties, search, ...own, ...pagingProperties },
})

export interface DiscoveryQuery extends Paged {
  projectId: string
  timezone: string
  window: Window
  search: string
  /** '' for events of every name. */
  event: string
  /** The property key (property values only; '' otherwise). */
  key: string
  /** Compared with the window before (event names only, queries/core/compare.ts). */
  compare?: CompareMode
  /** A compared question's names: the rows are these names' only. */
  kept?: KeptKeys
}

export interface PlannedDiscovery extends DiscoveryQuery {
  parts: WindowParts
}

interface RawParams {
  startDate?: string
  endDate?: string
  range: Range
  timezone?: string
  search: string
  event?: string
  key?: string
  cursor: number
  limit: number
  compare?: CompareMode
}

/** Every problem of the request in one 400: the schema's and the window's. */
function parseDiscovery(validate: ReturnType<typeof compileSchema>, raw: Record<string, unknown>, scope: Scope): DiscoveryQuery {
  // OpenPanel's names become Quarry's before the schema checks them (which requires `key`, given either way).
  const named: Issue[] = []
  const taken = Object.keys((validate.validate.schema as { properties: object }).properties)
  const { typed, issues } = checkedParams<RawParams>(validate, quarryNames(raw, taken, named))
  issues.push(...named)
  // A key named as filters name it (`properties.price`) is the bare key; `properties.` alone names none.
  // A refused key (repeated, so an array) is in `issues` already; it is read as none.
  const key = typeof typed.key === 'string' ? (propertyKeyOf(typed.key) ?? typed.key) : ''
  if (typed.key === 'properties.')
    issues.push({ path: ['key'], message: `"key" names no property: give it bare ("price") or as filters do ("properties.price")` })
  return {
    ...windowOrThrow(typed, scope, issues),
    search: typed.search,
    event: typed.event ?? '',
    key,
    limit: typed.limit,
    cursor: typed.cursor,
    ...(typed.compare ? { compare: typed.compare } : {}),
  }
}

/** The params every discovery statement binds: the project, the window and its parts, the search and the page. */
function discoveryParams(query: PlannedDiscovery): Params {
  const { hoursFrom, daysFrom, daysTo, hoursTo } = query.parts
  return {
    ...windowParams(query.projectId, query.window),
    hoursFrom: toClickHouseTime(hoursFrom),
    daysFrom: toClickHouseTime(daysFrom),
    daysTo: toClickHouseTime(daysTo),
    hoursTo: toClickHouseTime(hoursTo),
    search: query.search,
    ...pageParams(query),
  }
}

/** Whether the window leaves minutes over at an edge (it does not start and end on whole UTC hours). */
const hasMinutes = (query: PlannedDiscovery): boolean =>
  query.window.start.getTime() !== query.parts.hoursFrom.getTime() || query.parts.hoursTo.getTime() !== query.window.end.getTime()

/**
 * The statement of `file` (insights/<file>.sql) with `own` params: the summaries' day and hour rows, and the
 * events of the minutes left over (insights/<file>-minutes.sql) in UNION ALL only when there are some, so
 * that a window on whole hours plans no read of events.
 */
function discoveryStatement(file: string, query: PlannedDiscovery, own: Params, fragments: Record<string, Fragment> = {}): CompiledQuery {
  const params = { ...discoveryParams(query), ...own }
  if (!hasMinutes(query)) {
    const { start: _start, end: _end, ...summaries } = params
    return compileTemplate(`insights/${file}.sql`, summaries, { event_minutes: sqlOnly(''), ...fragments })
  }
  const minutes = compileInner(`insights/${file}-minutes.sql`, params)
  const indented = minutes.sql
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')
  return compileTemplate(`insights/${file}.sql`, params, {
    event_minutes: { sql: `\n  UNION ALL\n${indented}`, params: minutes.params },
    ...fragments,
  })
}

interface DiscoverySpec {
  name: string
  schema: object
  compile(query: PlannedDiscovery): CompiledQuery
  row(row: Row, query: PlannedDiscovery): Record<string, unknown>
  compare?: CompareHook<DiscoveryQuery, PlannedDiscovery>
}

function discoveryResource(spec: DiscoverySpec): Resource<DiscoveryQuery, PlannedDiscovery> {
  const validate = compileSchema(spec.schema)
  return {
    name: spec.name,
    schema: spec.schema,
    parse: (raw, scope) => parseDiscovery(validate, raw, scope),
    plan: planSteps(splitWindow),
    compile: spec.compile,
    shape(rows, query) {
      const { page, hasMore } = splitPage(rows, query)
      return { body: page.map((row) => spec.row(row, query)), hasMore }
    },
    ...(spec.compare ? { compare: spec.compare } : {}),
  }
}

export const eventNames = discoveryResource({
  name: 'events/names',
  schema: schemaOf({ compare: COMPARE_PROPERTY }),
  compile: (query) => discoveryStatement('events-names', query, {}, { kept_keys: keptKeysCondition(query.kept, ['name'], '\nHAVING') }),
  row: (row, query) => ({
    name: String(row.name),
    count: Number(row.event_count),
    lastSeen: formatInstant(new Date(Number(row.last_seen_ms)), query.timezone),
  }),
  compare: listCompare({
    fields: () => ['count'],
    keyOf: (row) => String(row.name),
    restrict: (parsed, rows) => ({ ...parsed, kept: { of: 'events/names', keys: rows.map((row) => [String(row.name)]) } }),
  }),
})

export const eventProperties = discoveryResource({
  name: 'events/properties',
  schema: schemaOf({ event, eventName }),
  compile: (query) => discoveryStatement('events-properties', query, { event: query.event }),
  // Keys named as filters and charts name them.
  row: (row) => ({ key: `properties.${String(row.key)}`, count: Number(row.event_count) }),
})

/**
 * The keys per event name, in key order (OpenPanel's key list, queries/openpanel-shapes/discovery.ts): bare keys,
 * as OpenPanel names them.
 */
export const eventPropertyPairs = discoveryResource({
  name: 'events/properties',
  schema: schemaOf({ event, eventName }),
  compile: (query) => discoveryStatement('events-property-pairs', query, { event: query.event }),
  row: (row) => ({ property_key: String(row.key), event_name: String(row.name), count: Number(row.event_count) }),
})

export const eventPropertyValues = discoveryResource({
  name: 'events/property_values',
  schema: schemaOf({ key, event, propertyKey, eventName }, ['key']),
  compile: (query) => discoveryStatement('events-property-values', query, { key: query.key, event: query.event }),
  row: (row) => ({ value: String(row.value), count: Number(row.event_count) }),
})
