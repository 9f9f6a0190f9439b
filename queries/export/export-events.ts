// `GET /export/events`: raw events, newest first (ties by id text), as keyset pages (opaque cursors),
// offset pages (`page`, for compatibility) or a stream of every matching row (ndjson, csv).
import type { DateTime } from 'luxon'
import { andClauses, compileTemplate, type CompiledQuery, type Fragment, type Params } from '../core/compiled'
import { isValidTimezone, parseBound } from '../core/dates'
import { invalid, type Issue } from '../core/errors'
import { SESSION_ONLY_ATTRIBUTES, compileAll, parseFilters, type Filter } from '../core/filters'
import { toClickHouseTime, type Scope } from '../core/pipeline'
import { UUID_PATTERN, compileSchema, schemaIssues } from '../core/validate'
import { windowParams } from '../core/window-params'

/** Column groups `includes` adds, with their response names (closed registry). */
export const INCLUDES = {
  properties: ['properties'],
  geo: ['region', 'latitude', 'longitude'],
  device: ['device', 'brand', 'model', 'os_version AS osVersion', 'browser_version AS browserVersion'],
  referrer: [
    'referrer',
    'referrer_name AS referrerName',
    'referrer_type AS referrerType',
    'utm_source AS utmSource',
    'utm_medium AS utmMedium',
    'utm_campaign AS utmCampaign',
    'utm_term AS utmTerm',
    'utm_content AS utmContent',
  ],
  meta: [
    'sdk_name AS sdkName',
    'sdk_version AS sdkVersion',
    "if(isNull(imported_at), NULL, concat(substring(formatDateTime(assumeNotNull(imported_at), '%Y-%m-%dT%H:%i:%S.%f', 'UTC'), 1, 23), '+00:00')) AS importedAt",
  ],
  profile: [],
  // The remaining event fields, so an export read back by `import` loses nothing.
  page: ['origin', 'title'],
  revenue: ['revenue'],
  groups: ['groups'],
} as const satisfies Record<string, readonly string[]>
export type Include = keyof typeof INCLUDES
const BASE_COLUMNS = [
  'id',
  'name',
  'deviceId',
  'profileId',
  'sessionId',
  'projectId',
  'createdAt',
  'path',
  'duration',
  'city',
  'country',
  'os',
  'browser',
]

/** The response fields of an export row, in order: the base ones, then each include's. */
export function exportColumns(query: { includes: readonly Include[] }): string[] {
  const included = query.includes.flatMap((name) =>
    name === 'profile' ? ['profile'] : INCLUDES[name].map((column) => column.split(' AS ').pop() as string),
  )
  return [...BASE_COLUMNS, ...included]
}
export const FORMATS = ['json', 'ndjson', 'csv'] as const
export type ExportFormat = (typeof FORMATS)[number]

/** Where a keyset page continues: after this row of the order. */
export interface Keyset {
  createdAtMs: number
  id: string
  page: number
}

export interface ExportQuery {
  projectId: string
  timezone: string
  start: Date
  end: Date
  events: string[]
  profileId?: string
  filters: Filter[]
  includes: Include[]
  limit: number
  after?: Keyset
  page?: number
  format: ExportFormat
}

const textOrList = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 100 }] }
const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    projectId: { type: 'string' },
    project_id: { type: 'string' },
    event: textOrList,
    profileId: { type: 'string', minLength: 1 },
    start: { type: 'string' },
    end: { type: 'string' },
    filters: { type: 'string' },
    includes: textOrList,
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
    cursor: { type: 'string', minLength: 1 },
    page: { type: 'integer', minimum: 1, maximum: 10_000_000 },
    format: { type: 'string', enum: FORMATS, default: 'json' },
    timezone: { type: 'string' },
  },
}
export const exportEventsSchema = schema
/** Rows an offset `page` may skip: the engine reads and drops every one of them, so deeper pages use `cursor`. */
const MAX_PAGE_OFFSET = 100_000
const validate = compileSchema(schema)

const listOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean)

// DateTime64(3) stops at 2299; an open end reads to there.
const OPEN_START = new Date('1970-01-01T00:00:00Z')
const OPEN_END = new Date('2299-12-31T00:00:00Z')

export function encodeCursor(keyset: Keyset): string {
  return Buffer.from(JSON.stringify([keyset.createdAtMs, keyset.id, keyset.page])).toString('base64url')
}

function decodeCursor(text: string): Keyset | undefined {
  try {
    const [createdAtMs, id, page] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[]
    const valid =
      Number.isSafeInteger(createdAtMs) &&
      (createdAtMs as number) >= 0 &&
      (createdAtMs as number) < OPEN_END.getTime() &&
      typeof id === 'string' &&
      UUID_PATTERN.test(id) &&
      Number.isSafeInteger(page) &&
      (page as number) >= 1
    if (!valid) return undefined
    return { createdAtMs: createdAtMs as number, id, page: page as number }
  } catch {
    return undefined
  }
}

function bound(raw: unknown, { name, zone, issues }: { name: 'start' | 'end'; zone: string; issues: Issue[] }): DateTime | undefined {
  if (raw === undefined) return undefined
  const value = parseBound(String(raw), zone, name === 'end')
  if (!value)
    issues.push({ path: [name], message: `"${name}" must be YYYY-MM-DD or an ISO date-time with Z or an offset, got "${String(raw)}"` })
  return value
}

export function parseExport(raw: Record<string, unknown>, scope: Scope): ExportQuery {
  const params = { ...raw }
  const issues = schemaIssues(validate, params)
  const timezone = typeof params.timezone === 'string' ? params.timezone : scope.project.timezone
  if (typeof params.timezone === 'string' && !isValidTimezone(params.timezone))
    issues.push({ path: ['timezone'], message: `"timezone" must be an IANA time zone, got "${params.timezone}"` })
  const zone = isValidTimezone(timezone) ? timezone : 'UTC'
  const start = bound(params.start, { name: 'start', zone, issues })
  const end = bound(params.end, { name: 'end', zone, issues })
  if (start && end && start >= end)
    issues.push({ path: ['start'], message: `the window is empty: start ${start.toISO()} is not before end ${end.toISO()}` })
  const includes = listOf(params.includes)
  includes.forEach((name, index) => {
    if (!Object.hasOwn(INCLUDES, name))
      issues.push({ path: ['includes', index], message: `unknown include "${name}"; known: ${Object.keys(INCLUDES).join(', ')}` })
  })
  const { filters, issues: filterIssues } = parseFilters(typeof params.filters === 'string' ? params.filters : undefined)
  issues.push(...filterIssues)
  filters.forEach((filter, index) => {
    if (filter.target.kind === 'session' && SESSION_ONLY_ATTRIBUTES.includes(filter.target.attribute)) {
      issues.push({
        path: ['filters', index, 'name'],
        message: `"${filter.target.attribute}" describes sessions; exported events have no such field`,
      })
    }
  })
  const format = params.format as ExportFormat
  let after: Keyset | undefined
  if (typeof params.cursor === 'string') {
    after = decodeCursor(params.cursor)
    if (!after) issues.push({ path: ['cursor'], message: '"cursor" is not a cursor this API issued' })
  }
  if (params.cursor !== undefined && params.page !== undefined)
    issues.push({ path: ['page'], message: 'give "cursor" or "page", not both' })
  const skipped = typeof params.page === 'number' && typeof params.limit === 'number' ? (params.page - 1) * params.limit : 0
  if (skipped > MAX_PAGE_OFFSET)
    issues.push({
      path: ['page'],
      message: `page ${params.page} with limit ${params.limit} skips ${skipped} rows, more than ${MAX_PAGE_OFFSET}: follow "cursor" (each page's meta.nextCursor), which costs the same at any depth`,
    })
  if (format !== 'json') {
    for (const name of ['cursor', 'page', 'limit'] as const) {
      if (raw[name] !== undefined)
        issues.push({ path: [name], message: `"${name}" pages JSON; format=${format} streams every matching row` })
    }
  }
  if (issues.length) throw invalid(issues)
  return {
    projectId: scope.project.id,
    timezone,
    start: start?.toJSDate() ?? OPEN_START,
    end: end?.toJSDate() ?? OPEN_END,
    events: listOf(params.event),
    profileId: params.profileId as string | undefined,
    filters,
    includes: [...new Set(includes as Include[])],
    limit: params.limit as number,
    after,
    page: params.page as number | undefined,
    format,
  }
}

/** An export after its plan: the conditions that select its events, compiled once for all its statements. */
export interface PlannedExport extends ExportQuery {
  /** The event names, the profile and the filters (on each event's own columns), each a condition. */
  selection: readonly Fragment[]
}

/**
 * Plan step: the conditions selecting the exported events, compiled once per request; a page's rows and
 * count, and every chunk of a stream, place the same ones.
 */
export function decideExportFilters(query: ExportQuery): PlannedExport {
  const selection: Fragment[] = []
  if (query.events.length) selection.push({ sql: 'name IN {events:Array(String)}', params: { events: query.events } })
  if (query.profileId !== undefined) selection.push({ sql: 'profile_id = {profileId:String}', params: { profileId: query.profileId } })
  const filters = compileAll(query.filters, { subject: 'events' })
  if (filters) selection.push(filters)
  return { ...query, selection }
}

/** `AND ...` for the planned selection and the keyset. */
function conditions(query: PlannedExport, after: Keyset | undefined): Fragment {
  if (!after) return andClauses([...query.selection])
  // The plain bound lets the key prune; the tuple decides ties within the millisecond.
  const keyset = {
    sql: "created_at <= {afterAt:DateTime64(3, 'UTC')}\n  AND (created_at, toUInt128(events.id)) < ({afterAt:DateTime64(3, 'UTC')}, toUInt128({afterId:UUID}))",
    params: { afterAt: toClickHouseTime(new Date(after.createdAtMs)), afterId: after.id },
  }
  return andClauses([...query.selection, keyset])
}

const exportWindowParams = (query: ExportQuery): Params => windowParams(query.projectId, { start: query.start, end: query.end })

/**
 * One slice of the order: `rows` rows after `after` (keyset) or after `offset` rows. `extraColumns`
 * (SQL from a closed list of the caller's) are added after the included ones.
 */
export function compileRows(
  query: PlannedExport,
  slice: { after?: Keyset; offset?: number; rows: number; extraColumns?: string[] },
): CompiledQuery {
  const includes = [...query.includes.flatMap((name) => INCLUDES[name]), ...(slice.extraColumns ?? [])]
  return compileTemplate(
    'export/events.sql',
    { ...exportWindowParams(query), tz: query.timezone, rowsToRead: slice.rows, offset: slice.offset ?? 0 },
    { includes: { sql: includes.map((column) => `,\n  ${column}`).join(''), params: {} }, conditions: conditions(query, slice.after) },
  )
}

export function compileCount(query: PlannedExport): CompiledQuery {
  return compileTemplate('export/count.sql', exportWindowParams(query), { conditions: conditions(query, undefined) })
}

/** The profiles of a bound list of ids, or of the ids a fragment selects (an export chunk's). */
export function compileProfiles(query: ExportQuery, ids: string[] | Fragment): CompiledQuery {
  const list = Array.isArray(ids) ? { sql: '{ids:Array(String)}', params: { ids } } : ids
  return compileTemplate('export/profiles.sql', { projectId: query.projectId }, { ids: list })
}

/** The keyset of a returned row (its createdAt carries an offset, so it parses to the exact instant). */
export function keysetOf(row: { createdAt: string; id: string }, page: number): Keyset {
  const createdAtMs = Date.parse(row.createdAt)
  if (Number.isNaN(createdAtMs)) throw new Error(`unreadable createdAt ${row.createdAt}`)
  return { createdAtMs, id: row.id, page }
}
