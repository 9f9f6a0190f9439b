// `GET /insights/:projectId/profiles`: the project's profiles with OpenPanel's filters (name, email, the
// country, city, device and browser properties, inactiveDays, minSessions, performedEvent, filters), sorted
// by creation (`sortOrder`), `limit` a page, as a bare array; the next page's keyset cursor in `Link`.
import { compileInner, compileTemplate, type Fragment, mergeParams, type Params, sqlOnly } from '../core/compiled'
import { type Issue, invalid } from '../core/errors'
import { planSteps, toClickHouseTime, type Resource } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { compileSchema, schemaIssues } from '../core/validate'
import { cursorProperty, decodeKeyset, KEYSET_FIRST, KEYSET_LAST, type Keyset, keysetPage } from './keyset'
import { profileRow } from './profile-rows'

/** The profile properties OpenPanel filters by name (`?browser=Firefox`): each compares the property's value. */
export const PROPERTY_PARAMS = ['country', 'city', 'device', 'browser'] as const

/** What a `filters` item may name: a profile column, or `properties.<key>`. */
const FILTER_COLUMNS = ['id', 'email', 'first_name', 'last_name'] as const
const FILTER_OPERATORS = ['is', 'isNot', 'contains', 'doesNotContain', 'startsWith', 'endsWith', 'isNull', 'isNotNull'] as const
/** At most this many filters and values each: the conditions' cost is bounded by the profiles read. */
const MAX_FILTERS = 20
const MAX_VALUES = 50
/** OpenPanel splits `name` into at most five tokens. */
const MAX_NAME_TOKENS = 5
const MAX_DAYS = 36_500

const filterItem = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'operator'],
  properties: {
    name: { type: 'string', pattern: `^(${FILTER_COLUMNS.join('|')}|properties\\..+)$` },
    operator: { enum: FILTER_OPERATORS },
    value: { type: 'array', maxItems: MAX_VALUES, items: { type: ['string', 'number', 'boolean'] } },
  },
}
const validateFilters = compileSchema({ type: 'array', maxItems: MAX_FILTERS, items: filterItem }, { coerce: false, keyNoun: 'field' })

const text = (description: string) => ({ type: 'string', maxLength: 200, description })

export const profilesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: text('Every whitespace-separated word (up to 5) is in the id, email, first, last or full name (case-insensitive)'),
    email: text('A case-insensitive part of the email'),
    ...Object.fromEntries(PROPERTY_PARAMS.map((key) => [key, text(`The profile property "${key}" equals this`)])),
    inactiveDays: { type: 'integer', minimum: 1, maximum: MAX_DAYS, description: 'No event in this many days before now' },
    minSessions: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'At least this many sessions' },
    performedEvent: text('Has an event of this name'),
    filters: {
      type: 'string',
      description: `URL-encoded JSON: [{ name: ${FILTER_COLUMNS.join('|')}|properties.<key>, operator, value: [...] }], ANDed`,
    },
    sortOrder: { enum: ['asc', 'desc'], default: 'desc', description: 'By creation time (ties by id)' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    cursor: cursorProperty,
  },
}
const validateParams = compileSchema(profilesSchema, { coerce: true })

interface ProfileFilter {
  name: string
  operator: (typeof FILTER_OPERATORS)[number]
  value?: (string | number | boolean)[]
}

export interface ProfilesQuery {
  projectId: string
  email: string
  nameTokens: string[]
  properties: [string, string][]
  filters: ProfileFilter[]
  /** Profiles with an event at or after this time are left out (inactiveDays). */
  activeSince?: Date
  minSessions: number
  performedEvent: string
  order: 'asc' | 'desc'
  limit: number
  after: Keyset
}

function readFilters(raw: unknown, issues: Issue[]): ProfileFilter[] {
  if (typeof raw !== 'string') return []
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    issues.push({ path: ['filters'], message: '"filters" must be URL-encoded JSON' })
    return []
  }
  const problems = schemaIssues(validateFilters, parsed, ['filters'])
  issues.push(...problems)
  return problems.length ? [] : (parsed as ProfileFilter[])
}

/** The filters' values as one flat list, each filter's slice given by its first (1-based) and count. */
function flatValues(filters: readonly ProfileFilter[]): { filterValues: string[]; filterFirsts: number[]; filterCounts: number[] } {
  const filterValues: string[] = []
  const filterFirsts: number[] = []
  const filterCounts: number[] = []
  for (const filter of filters) {
    filterFirsts.push(filterValues.length + 1)
    filterCounts.push(filter.value?.length ?? 0)
    filterValues.push(...(filter.value ?? []).map(String))
  }
  return { filterValues, filterFirsts, filterCounts }
}

/**
 * The conditions the query asks, and the params they read: on the profile's columns, its events and its
 * sessions. One not asked is left out, not made to pass: it would still be evaluated on every profile.
 */
function askedConditions(query: ProfilesQuery): { fragment: Fragment; params: Params } {
  const asked: [string, Params][] = [
    ...(query.email ? [['people/profiles-email.sql', { email: query.email }] as [string, Params]] : []),
    ...(query.nameTokens.length ? [['people/profiles-name.sql', { nameTokens: query.nameTokens }] as [string, Params]] : []),
    ...(query.properties.length
      ? [
          [
            'people/profiles-properties.sql',
            { propertyKeys: query.properties.map(([key]) => key), propertyValues: query.properties.map(([, value]) => value) },
          ] as [string, Params],
        ]
      : []),
    ...(query.filters.length
      ? [
          [
            'people/profiles-filters.sql',
            {
              filterFields: query.filters.map((filter) => filter.name),
              filterOperators: query.filters.map((filter) => filter.operator),
              ...flatValues(query.filters),
            },
          ] as [string, Params],
        ]
      : []),
    ...(query.activeSince
      ? [['people/profiles-inactive.sql', { activeSince: toClickHouseTime(query.activeSince) }] as [string, Params]]
      : []),
    ...(query.minSessions ? [['people/profiles-min-sessions.sql', { minSessions: query.minSessions }] as [string, Params]] : []),
    ...(query.performedEvent ? [['people/profiles-performed.sql', { performedEvent: query.performedEvent }] as [string, Params]] : []),
  ]
  const params = mergeParams(
    asked.map(([, own]) => own),
    'profile conditions',
  )
  const parts = asked.map(([file]) => compileInner(file, { projectId: query.projectId, ...params }).sql)
  return { fragment: sqlOnly(parts.map((part) => `\n    ${part.split('\n').join('\n    ')}`).join('')), params }
}

export const profiles: Resource<ProfilesQuery, ProfilesQuery, Rows['people/profiles.sql']> = {
  name: 'profiles',
  schema: profilesSchema,
  parse(raw, scope) {
    const issues = schemaIssues(validateParams, raw)
    const filters = readFilters(raw.filters, issues)
    const order = raw.sortOrder === 'asc' ? 'asc' : 'desc'
    const after = typeof raw.cursor === 'string' ? decodeKeyset(raw.cursor, issues) : undefined
    if (issues.length) throw invalid(issues)
    const days = typeof raw.inactiveDays === 'number' ? raw.inactiveDays : undefined
    return {
      projectId: scope.project.id,
      email: typeof raw.email === 'string' ? raw.email : '',
      nameTokens: String(raw.name ?? '')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .slice(0, MAX_NAME_TOKENS),
      // An empty value asks nothing, as OpenPanel reads it.
      properties: PROPERTY_PARAMS.flatMap((key): [string, string][] => (raw[key] ? [[key, String(raw[key])]] : [])),
      filters,
      activeSince: days === undefined ? undefined : new Date(scope.now.getTime() - days * 86_400_000),
      minSessions: typeof raw.minSessions === 'number' ? raw.minSessions : 0,
      performedEvent: typeof raw.performedEvent === 'string' ? raw.performedEvent : '',
      order,
      limit: typeof raw.limit === 'number' ? raw.limit : 20,
      after: after ?? (order === 'asc' ? KEYSET_FIRST : KEYSET_LAST),
    }
  },
  plan: planSteps((query: ProfilesQuery) => query),
  compile(query) {
    const ascending = query.order === 'asc'
    const conditions = askedConditions(query)
    return compileTemplate(
      'people/profiles.sql',
      { projectId: query.projectId, ...conditions.params, afterMs: query.after.ms, afterId: query.after.id, rows: query.limit + 1 },
      {
        people_conditions: conditions.fragment,
        // The order and the keyset's side come from these two closed choices.
        people_after: sqlOnly(`(created_ms, id) ${ascending ? '>' : '<'} ({afterMs:Int64}, {afterId:String})`),
        people_order: sqlOnly(ascending ? 'created_ms ASC, id ASC' : 'created_ms DESC, id DESC'),
      },
    )
  },
  shape(rows, query) {
    const { page, nextCursor } = keysetPage(rows, query.limit, (row) => ({ ms: Number(row.created_ms), id: row.id }))
    return {
      body: page.map(profileRow),
      hasMore: nextCursor !== undefined,
      ...(nextCursor === undefined ? {} : { next: { cursor: nextCursor } }),
    }
  },
}
