// `GET /insights/:projectId/events` (OpenPanel's): the newest events of the window as a bare array of
// event rows in the events table's own column names, answered by `/export/events`' statement.
import { invalid } from '../core/errors'
import type { Scope } from '../core/pipeline'
import { exportEvents } from '../export/export-resource'
import { INCLUDES } from '../export/export-events'
import { adapt, withOpenPanelWindow } from './adapt'

/** OpenPanel's equality parameters and the filter each one is (docs/definitions.md "Filters"). */
const EQUALS = {
  path: 'path',
  country: 'country',
  city: 'city',
  device: 'device',
  browser: 'browser',
  os: 'os',
  referrer: 'referrer',
  referrerName: 'referrer_name',
  referrerType: 'referrer_type',
} as const

const textList = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 100 }] }

/** Every column group: OpenPanel answers every column of the events table. */
const EVERY_INCLUDE = Object.keys(INCLUDES)
  .filter((name) => name !== 'profile')
  .join(',')

/** An export row's fields by the events table's column names (OpenPanel's rows are its columns). */
const COLUMN_NAMES: Record<string, string> = {
  deviceId: 'device_id',
  profileId: 'profile_id',
  sessionId: 'session_id',
  projectId: 'project_id',
  createdAt: 'created_at',
  osVersion: 'os_version',
  browserVersion: 'browser_version',
  referrerName: 'referrer_name',
  referrerType: 'referrer_type',
  utmSource: 'utm_source',
  utmMedium: 'utm_medium',
  utmCampaign: 'utm_campaign',
  utmTerm: 'utm_term',
  utmContent: 'utm_content',
  sdkName: 'sdk_name',
  sdkVersion: 'sdk_version',
  importedAt: 'imported_at',
}

const asColumns = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [COLUMN_NAMES[key] ?? key, value]))

/** A JSON text's value, or a 400 naming the parameter. */
function parsedJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw invalid([{ path: [name], message: `"${name}" must be URL-encoded JSON` }])
  }
}

/** `properties` as OpenPanel's property equalities: a JSON object of texts. */
function propertyFilters(text: unknown): object[] {
  if (text === undefined) return []
  const value = parsedJson('properties', String(text))
  if (!value || typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((item) => typeof item !== 'string')) {
    throw invalid([{ path: ['properties'], message: '"properties" must be a JSON object of texts, e.g. {"plan":"pro"}' }])
  }
  return Object.entries(value).map(([key, item]) => ({ name: `properties.${key}`, operator: 'is', value: [item] }))
}

/** The export's query string: the window as `start`/`end`, names as `event`, equalities and `properties` as filters. */
function toExport(own: Record<string, unknown>, rest: Record<string, unknown>, scope: Scope): Record<string, unknown> {
  const dates = withOpenPanelWindow({ startDate: own.startDate, endDate: own.endDate, timezone: rest.timezone }, scope)
  const equalities = Object.entries(EQUALS)
    .filter(([param]) => own[param] !== undefined)
    .map(([param, name]) => ({ name, operator: 'is', value: [own[param]] }))
  const properties = propertyFilters(own.properties)
  const given = typeof rest.filters === 'string' ? parsedJson('filters', rest.filters) : []
  if (!Array.isArray(given)) throw invalid([{ path: ['filters'], message: '"filters" must be a JSON array of filters' }])
  const filters = [...equalities, ...properties, ...given]
  return {
    ...rest,
    ...(filters.length ? { filters: JSON.stringify(filters) } : {}),
    start: dates.startDate,
    ...(dates.endDate !== undefined ? { end: dates.endDate } : {}),
    ...(own.eventNames !== undefined ? { event: own.eventNames } : {}),
    ...(own.profileId !== undefined ? { profileId: own.profileId } : {}),
    includes: EVERY_INCLUDE,
    limit: own.limit,
  }
}

const adaptedExport = adapt(exportEvents, {
  name: 'openpanel.events',
  own: {
    startDate: { type: 'string' },
    endDate: { type: 'string' },
    eventNames: textList,
    ...Object.fromEntries(Object.keys(EQUALS).map((name) => [name, { type: 'string' }])),
    profileId: { type: 'string', minLength: 1 },
    properties: { type: 'string', description: 'Property equalities as a JSON object, e.g. {"plan":"pro"}' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  passes: ['timezone', 'filters'],
  toBase: toExport,
  reshape: ({ body }) => ({ body: (body as { data: Record<string, unknown>[] }).data.map(asColumns) }),
})

/** One statement, its rows alone: OpenPanel's answer is one JSON array, with no count, profiles or stream. */
export const events: typeof adaptedExport = { ...adaptedExport, alongside: undefined, follow: undefined, stream: undefined }
