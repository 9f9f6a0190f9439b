// The filter compiler (docs/definitions.md "Filters"): parses the `filters` JSON parameter into typed
// filters, listing every problem, and compiles each to a SQL condition whose values (and property
// keys) are bound params prefixed per filter, so fragments never collide.
import { mergeParams, type Fragment, type Params } from './compiled'
import { assertNever, type Issue } from './errors'
import { regexIssues, type RegexPattern } from './regex-budget'
import {
  EVENT_FIELDS,
  SESSION_ATTRIBUTES,
  SESSION_ONLY_ATTRIBUTES,
  isEventField,
  isSessionAttribute,
  propertyKeyOf,
  sessionColumn,
  type EventField,
  type SessionAttribute,
} from './registry'
import { compileSchema, schemaIssues } from './validate'

export const OPERATORS = [
  'is',
  'isNot',
  'contains',
  'doesNotContain',
  'startsWith',
  'endsWith',
  'regex',
  'isNull',
  'isNotNull',
  'gt',
  'lt',
  'gte',
  'lte',
] as const
export type Operator = (typeof OPERATORS)[number]
const NUMERIC_OPERATORS: readonly Operator[] = ['gt', 'lt', 'gte', 'lte']
const VALUELESS_OPERATORS: readonly Operator[] = ['isNull', 'isNotNull']

export type FilterTarget =
  | { kind: 'session'; attribute: SessionAttribute }
  | { kind: 'event'; field: EventField }
  | { kind: 'property'; key: string }

export interface Filter {
  target: FilterTarget
  operator: Operator
  /** Text values (numbers as their decimal text); for numeric operators, `numbers` holds them. */
  values: string[]
  numbers: number[]
}

/** The number grammar of numeric comparisons: sign, digits, fraction, exponent; nothing else. */
const NUMBER_PATTERN = '^[+-]?[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?$'
const NUMBER = new RegExp(NUMBER_PATTERN)

/**
 * SQL: whether a String expression is a number in that grammar. TRICKY: toFloat64OrZero alone would
 * read 'abc' as 0 and 'inf' as infinity; text that passes this test never fails to parse.
 */
export const isNumberText = (expression: string): string => `match(${expression}, '${NUMBER_PATTERN.replace(/\\/g, '\\\\')}')`

/** Values a filter may list: a `contains` search takes at most 255 (multiSearchAny). */
const MAX_VALUES = 100

/** One filter item `{ name, operator, value }`: an entry of the flat array, or a session leaf of a tree. */
export const filterItemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'operator'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    operator: { type: 'string', enum: OPERATORS },
    value: { type: 'array', maxItems: MAX_VALUES, items: { type: ['string', 'number'] } },
  },
}
export const filtersSchema = { type: 'array', maxItems: 50, items: filterItemSchema }
const validateFilters = compileSchema(filtersSchema, { coerce: false, keyNoun: 'key' })
const validateFilterItem = compileSchema(filterItemSchema, { coerce: false, keyNoun: 'key' })

function targetOf(name: string): FilterTarget | undefined {
  if (isSessionAttribute(name)) return { kind: 'session', attribute: name }
  if (isEventField(name)) return { kind: 'event', field: name }
  const key = propertyKeyOf(name)
  return key === undefined ? undefined : { kind: 'property', key }
}

const KNOWN_NAMES = [...Object.keys(SESSION_ATTRIBUTES), ...Object.keys(EVENT_FIELDS), 'properties.<key>'].join(', ')

/**
 * One filter, every problem listed, and its regex patterns (a regex filter's values, at their paths) for the
 * request's regex check (regex-budget.ts), which counts and compiles every pattern of the request at once.
 */
function parseOne(
  raw: { name: string; operator: Operator; value?: (string | number)[] },
  path: (string | number)[],
): { filter?: Filter; issues: Issue[]; patterns: RegexPattern[] } {
  const issues: Issue[] = []
  const target = targetOf(raw.name)
  if (!target) issues.push({ path: [...path, 'name'], message: `unknown filter "${raw.name}"; known: ${KNOWN_NAMES}` })
  const raws = raw.value ?? []
  const values = raws.map((value) => (typeof value === 'number' ? String(value) : value))
  const numbers: number[] = []
  if (VALUELESS_OPERATORS.includes(raw.operator)) {
    if (raws.length) issues.push({ path: [...path, 'value'], message: `operator "${raw.operator}" takes no values` })
  } else if (raws.length === 0) {
    issues.push({ path: [...path, 'value'], message: `operator "${raw.operator}" needs at least one value` })
  }
  if (NUMERIC_OPERATORS.includes(raw.operator)) {
    if (target && target.kind !== 'property')
      issues.push({
        path: [...path, 'operator'],
        message: `operator "${raw.operator}" compares numbers and applies only to properties.<key>`,
      })
    values.forEach((value, index) => {
      if (NUMBER.test(value) && Number.isFinite(Number(value))) numbers.push(Number(value))
      else issues.push({ path: [...path, 'value', index], message: `"${value}" is not a number` })
    })
  }
  const patterns = raw.operator === 'regex' ? values.map((text, index) => ({ text, path: [...path, 'value', index] })) : []
  if (issues.length || !target) return { issues, patterns }
  return { filter: { target, operator: raw.operator, values, numbers }, issues, patterns }
}

/**
 * Reads the `filters` parameter (JSON text), every problem listed, with its regex patterns for the request's
 * budget (regex-budget.ts), which the caller applies over all of the request's patterns.
 */
export function readFilters(text: string | undefined): { filters: Filter[]; issues: Issue[]; patterns: RegexPattern[] } {
  if (text === undefined) return { filters: [], issues: [], patterns: [] }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return {
      filters: [],
      issues: [{ path: ['filters'], message: `"filters" is not valid JSON: ${(error as Error).message}` }],
      patterns: [],
    }
  }
  return parseFilterList(parsed)
}

/** Parses the `filters` parameter (JSON text) of a request whose only patterns they are; every problem is listed. */
export function parseFilters(text: string | undefined): { filters: Filter[]; issues: Issue[] } {
  const { filters, issues, patterns } = readFilters(text)
  return { filters, issues: [...issues, ...regexIssues([{ patterns, runs: 1 }])] }
}

/**
 * The one issue of a filter tree (a JSON object) given where only a flat list is taken (a funnel's or
 * retention's filters, a step's, a chart series'), instead of the schema's lines about arrays; undefined for
 * anything else, which the schema then checks.
 */
export function treeRefusal(value: unknown, path: (string | number)[]): Issue | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return {
    path,
    message:
      `"${path.join('.')}" is a filter tree, which is not accepted here: give a flat array of filters ([{ "name", "operator", "value" }], all of which must hold); ` +
      'trees are taken by the filters of /metrics, /pages, /pages/entry_exit, /sessions, /paths and the breakdowns (docs/api/filters.md)',
  }
}

/** One filter item already read from JSON, its issues and regex patterns reported under `path`. */
export function parseFilterItem(value: unknown, path: (string | number)[]): { filter?: Filter; issues: Issue[]; patterns: RegexPattern[] } {
  const shapeIssues = schemaIssues(validateFilterItem, value, path)
  if (shapeIssues.length) return { issues: shapeIssues, patterns: [] }
  return parseOne(value as { name: string; operator: Operator; value?: (string | number)[] }, path)
}

/** Parses filters already read from JSON (a chart item's `filters`); issue and pattern paths start at `filters`. */
export function parseFilterList(value: unknown): { filters: Filter[]; issues: Issue[]; patterns: RegexPattern[] } {
  const tree = treeRefusal(value, ['filters'])
  if (tree) return { filters: [], issues: [tree], patterns: [] }
  const shapeIssues = schemaIssues(validateFilters, value, ['filters'])
  if (shapeIssues.length) return { filters: [], issues: shapeIssues, patterns: [] }
  const filters: Filter[] = []
  const issues: Issue[] = []
  const patterns: RegexPattern[] = []
  ;(value as { name: string; operator: Operator; value?: (string | number)[] }[]).forEach((raw, index) => {
    const result = parseOne(raw, ['filters', index])
    if (result.filter) filters.push(result.filter)
    issues.push(...result.issues)
    patterns.push(...result.patterns)
  })
  return { filters, issues, patterns }
}

/**
 * Where session attributes are read: `sessions` (the session's first event, as `s_<column>` of a grouped
 * session) or `events` (each event row's own column of the same name, for export).
 */
export type FilterSubject = 'sessions' | 'events'

/** Session attributes that exist only on sessions, not on event rows (the registry's, from its one list). */
export { SESSION_ONLY_ATTRIBUTES }

/** The filter's target as SQL; a property key is bound as a value. */
function targetExpression(
  target: FilterTarget,
  { prefix, params, subject }: { prefix: string; params: Fragment['params']; subject: FilterSubject },
): string {
  switch (target.kind) {
    case 'session':
      if (subject === 'events' && SESSION_ONLY_ATTRIBUTES.includes(target.attribute))
        throw new Error(`${target.attribute} is not an event column`)
      return subject === 'sessions' ? sessionColumn(target.attribute) : SESSION_ATTRIBUTES[target.attribute]
    case 'event':
      return EVENT_FIELDS[target.field]
    case 'property':
      params[`${prefix}_key`] = target.key
      return `properties[{${prefix}_key:String}]`
    default:
      return assertNever(target)
  }
}

/**
 * SQL: whether the lowered text contains any lowered value, as `position(lowerUTF8(x), lowerUTF8(v)) > 0`
 * for some value, in one multi-needle search instead of a lambda per value, which ran for every page of every
 * settled session.
 * TRICKY: multiSearchAny finds no empty needle in an empty text, where `position` finds it everywhere: with
 * an empty value (`hasEmpty`) every text matches, so the condition is that constant, and without one it is
 * the search alone. Written as one condition for both (`has(lowered, '') OR ...`), the OR ran for every row
 * (docs/measurements.md, "Filters"). At most 255 needles: MAX_VALUES keeps under it.
 */
const containsAny = (x: string, values: string, hasEmpty: boolean) =>
  hasEmpty ? `has(${values}, '')` : `multiSearchAny(lowerUTF8(${x}), arrayMap(v -> lowerUTF8(v), ${values}))`

/**
 * SQL: whether the text matches any of the patterns, each bound as a String of its own (`{prefix_v0:String}`,
 * ...) and tested by its own `match`: a constant pattern is compiled once per statement. TRICKY: as a lambda
 * over an array of patterns (`arrayExists(v -> match(x, v), ...)`) each pattern is a column, compiled again
 * for every row, and the engine checks for a KILL or its time limit only between blocks: a block of maximal
 * patterns ran on for many seconds past its time limit, holding the engine (docs/measurements.md, "Filters").
 */
function regexAny(x: string, patterns: readonly string[], prefix: string, params: Fragment['params']): string {
  return patterns
    .map((pattern, index) => {
      params[`${prefix}_v${index}`] = pattern
      return `match(${x}, {${prefix}_v${index}:String})`
    })
    .join(' OR ')
}

/** One filter as a SQL condition over its target column. */
export function compileFilter(filter: Filter, prefix: string, subject: FilterSubject = 'sessions'): Fragment {
  const params: Fragment['params'] = {}
  const x = targetExpression(filter.target, { prefix, params, subject })
  // Each operator binds the values it reads: the texts as one array, a regex's patterns one by one, numbers as numbers.
  const texts = () => {
    params[`${prefix}_v`] = filter.values
    return `{${prefix}_v:Array(String)}`
  }
  const anyText = (test: string) => `arrayExists(v -> ${test}, ${texts()})`
  let sql: string
  switch (filter.operator) {
    case 'is':
      sql = `${x} IN ${texts()}`
      break
    case 'isNot':
      sql = `${x} NOT IN ${texts()}`
      break
    case 'contains':
      sql = containsAny(x, texts(), filter.values.includes(''))
      break
    case 'doesNotContain':
      sql = `NOT ${containsAny(x, texts(), filter.values.includes(''))}`
      break
    case 'startsWith':
      sql = anyText(`startsWith(lowerUTF8(${x}), lowerUTF8(v))`)
      break
    case 'endsWith':
      sql = anyText(`endsWith(lowerUTF8(${x}), lowerUTF8(v))`)
      break
    case 'regex':
      sql = regexAny(x, filter.values, prefix, params)
      break
    case 'isNull':
      sql = `${x} = ''`
      break
    case 'isNotNull':
      sql = `${x} != ''`
      break
    case 'gt':
    case 'lt':
    case 'gte':
    case 'lte': {
      const op = { gt: '>', lt: '<', gte: '>=', lte: '<=' }[filter.operator]
      params[`${prefix}_v`] = filter.numbers
      sql = `(${isNumberText(x)} AND arrayExists(v -> toFloat64OrZero(${x}) ${op} v, {${prefix}_v:Array(Float64)}))`
      break
    }
    default:
      return assertNever(filter.operator)
  }
  return { sql: `(${sql})`, params }
}

const isSessionFilter = (filter: Filter) => filter.target.kind === 'session'
const isNameFilter = (filter: Filter) => filter.target.kind === 'event' && filter.target.field === 'name'
const isPageFilter = (filter: Filter) =>
  filter.target.kind === 'event' && (filter.target.field === 'origin' || filter.target.field === 'path')

/** Fragments ANDed into one, or null when there are none. */
function allOf(parts: Fragment[]): Fragment | null {
  if (parts.length === 0) return null
  return {
    sql: parts.map((part) => part.sql).join(' AND '),
    params: mergeParams(
      parts.map((part) => part.params),
      'a filter conjunction',
    ),
  }
}

/**
 * Every filter ANDed, or null when there are none; each keeps the param prefix of its position (`f<index>`),
 * after `names` when given (`s0_` gives `s0_f<index>`: a chart item's filters, named as its statement binds them).
 */
export function compileAll(filters: Filter[], options: { subject?: FilterSubject; names?: string } = {}): Fragment | null {
  return allOf(filters.map((filter, index) => compileFilter(filter, `${options.names ?? ''}f${index}`, options.subject)))
}

/**
 * A request's filters over sessions, each compiled once and sorted by what it restricts. The conditions
 * are SQL text only: a statement binds `params` once, whichever conditions it uses (each at least once).
 */
export interface SortedFilters {
  /**
   * The session-attribute filters ANDed, over a grouped session's `s_` columns (or a filter tree, which may
   * read session_id too); null without any.
   */
  sessionRestriction: string | null
  /** Every event-field filter ANDed, `name` included: the events that make a session match; null without any. */
  eventSelection: string | null
  /** The event-field filters but `name` ANDed: the page views that count; null without any. */
  viewCondition: string | null
  /** Whether the view condition reads a view's page (origin, path) only: the same for all views of a page. */
  viewConditionOnPage: boolean
  /** Whether a filter reads the event `name`; without one, the view condition is the whole event selection. */
  nameFiltered: boolean
  /** The session attributes the restriction reads. */
  sessionAttributes: SessionAttribute[]
  /**
   * Whether the restriction reads sets of sessions built from events (a tree's performed leaves): placed
   * once over all the window's sessions rather than in each of their sources, where each would build them.
   */
  restrictionReadsEvents: boolean
  /**
   * The scan of a tree's performed leaves that the restriction reads as `performed_sessions`: the statement
   * names it once in its WITH (queries/core/filter-tree.ts); null for other filters.
   */
  performedSessions: string | null
  /** Every filter's values (and property keys). */
  params: Params
}

/** Compiles each filter once (prefix `f<index>`) and sorts the conditions into the three groups. */
export function sortFilters(filters: Filter[]): SortedFilters {
  const compiled = filters.map((filter, index) => ({ filter, fragment: compileFilter(filter, `f${index}`) }))
  const sqlOf = (keep: (filter: Filter) => boolean): string | null => {
    const kept = compiled.filter((entry) => keep(entry.filter)).map((entry) => entry.fragment.sql)
    return kept.length ? kept.join(' AND ') : null
  }
  return {
    sessionRestriction: sqlOf(isSessionFilter),
    eventSelection: sqlOf((filter) => !isSessionFilter(filter)),
    viewCondition: sqlOf((filter) => !isSessionFilter(filter) && !isNameFilter(filter)),
    viewConditionOnPage: filters.every((filter) => isSessionFilter(filter) || isNameFilter(filter) || isPageFilter(filter)),
    nameFiltered: filters.some(isNameFilter),
    sessionAttributes: filters.flatMap((filter) => (filter.target.kind === 'session' ? [filter.target.attribute] : [])),
    restrictionReadsEvents: false,
    performedSessions: null,
    params: mergeParams(
      compiled.map((entry) => entry.fragment.params),
      'the filters',
    ),
  }
}
