// Parsing of `/export/charts` requests: series items (events and formulas), breakdowns, dates,
// interval and `previous`, with every problem listed.
import { windowOrThrow } from '../core/request-window'
import type { Fragment } from '../core/compiled'
import { INTERVALS, RANGES, type Interval, type Range, type Window } from '../core/dates'
import type { Issue } from '../core/errors'
import { SESSION_ONLY_ATTRIBUTES, parseFilterList, treeRefusal, type Filter } from '../core/filters'
import { patternsUnder, regexIssues, type RegexPattern } from '../core/regex-budget'
import { lettersOf, parseFormula, type Formula } from './formula'
import type { Scope } from '../core/pipeline'
import type { EventReads } from '../core/reads'
import { EVENT_FIELDS, SESSION_ATTRIBUTES, isEventField, isSessionAttribute, propertyKeyOf } from '../core/registry'
import { compileSchema, schemaIssues } from '../core/validate'

export const SEGMENTS = [
  'event',
  'user',
  'session',
  'group',
  'user_average',
  'one_event_per_user',
  'property_sum',
  'property_average',
  'property_min',
  'property_max',
] as const
export type Segment = (typeof SEGMENTS)[number]
export const PROPERTY_SEGMENTS: readonly Segment[] = ['property_sum', 'property_average', 'property_min', 'property_max']
type PropertySegment = Extract<Segment, `property_${string}`>
const isPropertySegment = (segment: Segment): segment is PropertySegment => PROPERTY_SEGMENTS.includes(segment)

/** Numeric event columns a property segment may aggregate (besides `properties.<key>`). */
export const NUMERIC_COLUMNS = { duration: 'duration', revenue: 'revenue' } as const
export type NumericSource = { kind: 'column'; column: keyof typeof NUMERIC_COLUMNS } | { kind: 'property'; key: string }

/** A value read per event for a breakdown: a column of `events` or a property. */
export type FieldSource = { kind: 'column'; column: string } | { kind: 'property'; key: string }

interface EventItemBase {
  kind: 'event'
  letter: string
  name: string
  filters: Filter[]
  displayName?: string
}

/** An item counting events, users, sessions or groups. */
export interface CountItem extends EventItemBase {
  segment: Exclude<Segment, PropertySegment>
}

/** An item aggregating a numeric property of its events. */
export interface PropertyItem extends EventItemBase {
  segment: PropertySegment
  property: NumericSource
}

export type EventItem = CountItem | PropertyItem

export interface FormulaItem {
  kind: 'formula'
  letter: string
  formula: Formula
  text: string
  displayName?: string
}

export type SeriesItem = EventItem | FormulaItem

export interface Breakdown {
  name: string
  source: FieldSource
}

/** A parsed chart request. */
export interface ChartRequest {
  projectId: string
  timezone: string
  window: Window
  interval?: Interval
  /** Whether each bucket is compared with the window before this one. */
  previous: boolean
  items: SeriesItem[]
  breakdowns: Breakdown[]
  breakdownLimit: number
}

/** A chart after its plan (chart-plan.ts): its interval picked and its previous window, if asked for, resolved. */
export interface ChartQuery extends ChartRequest {
  interval: Interval
  previousWindow?: Window
}

/**
 * An event item with its event name and filters compiled once, by the plan (chart-plan.ts): `AND ...`
 * conditions on each event row, their params named as the chart's statement binds them (`s<index>_...`).
 */
export type SortedEventItem = EventItem & { conditions: Fragment }

/** A chart after its filters are compiled. */
export interface SortedChart extends ChartQuery {
  items: (SortedEventItem | FormulaItem)[]
}

/** An event item after its plan: what it is read from decided too (core/reads.ts). */
export type PlannedEventItem = SortedEventItem & { reads: EventReads }

export type PlannedSeriesItem = PlannedEventItem | FormulaItem

/** A chart after every plan step. */
export interface PlannedChart extends SortedChart {
  items: PlannedSeriesItem[]
}

const paramsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['series'],
  properties: {
    projectId: { type: 'string' },
    project_id: { type: 'string' },
    series: { type: 'string' },
    breakdowns: { type: 'string' },
    breakdownLimit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    interval: { type: 'string', enum: INTERVALS },
    range: { type: 'string', enum: RANGES, default: '30d' },
    startDate: { type: 'string' },
    endDate: { type: 'string' },
    timezone: { type: 'string' },
    previous: { type: 'string', enum: ['true', 'false'], default: 'false' },
  },
}
export const chartSchema = paramsSchema
const validateParams = compileSchema(paramsSchema)

const itemsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 10,
  items: {
    anyOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200 },
          filters: { type: 'array' },
          segment: { type: 'string', enum: SEGMENTS },
          property: { type: 'string', minLength: 1 },
          displayName: { type: 'string' },
        },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'formula'],
        properties: {
          type: { const: 'formula' },
          formula: { type: 'string', minLength: 1, maxLength: 500 },
          displayName: { type: 'string' },
        },
      },
    ],
  },
}
const validateItems = compileSchema(itemsSchema, { coerce: false, keyNoun: 'key' })
const breakdownsSchema = {
  type: 'array',
  maxItems: 3,
  items: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', minLength: 1 } } },
}
const validateBreakdowns = compileSchema(breakdownsSchema, { coerce: false, keyNoun: 'key' })

function parseJson(text: string, name: string, issues: Issue[]): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    issues.push({ path: [name], message: `"${name}" is not valid JSON: ${(error as Error).message}` })
    return undefined
  }
}

/** A breakdown or filter name as a column of `events` or a property key; undefined when unknown. */
export function fieldSource(name: string): FieldSource | undefined {
  if (isEventField(name)) return { kind: 'column', column: EVENT_FIELDS[name] }
  if (isSessionAttribute(name) && !SESSION_ONLY_ATTRIBUTES.includes(name)) return { kind: 'column', column: SESSION_ATTRIBUTES[name] }
  const key = propertyKeyOf(name)
  return key === undefined ? undefined : { kind: 'property', key }
}

function numericSource(property: string): NumericSource | undefined {
  if (Object.hasOwn(NUMERIC_COLUMNS, property)) return { kind: 'column', column: property as keyof typeof NUMERIC_COLUMNS }
  const key = propertyKeyOf(property)
  return key === undefined ? undefined : { kind: 'property', key }
}

type RawItem = {
  name?: string
  filters?: unknown[]
  segment?: Segment
  property?: string
  displayName?: string
  type?: 'formula'
  formula?: string
}

/** The series items, every problem into `issues` and the items' regex patterns into `patterns`. */
function parseItems(raw: RawItem[], issues: Issue[], patterns: RegexPattern[]): SeriesItem[] {
  const letters = raw.map((_, index) => String.fromCharCode(65 + index))
  const eventLetters = new Set(raw.flatMap((item, index) => (item.type === 'formula' ? [] : [letters[index]])))
  return raw.flatMap((item, index): SeriesItem[] => {
    const path = ['series', index]
    const letter = letters[index]
    if (item.type === 'formula') {
      try {
        const formula = parseFormula(item.formula as string)
        const unknown = lettersOf(formula).filter((used) => !eventLetters.has(used))
        if (unknown.length) {
          issues.push({
            path: [...path, 'formula'],
            message: `the formula refers to ${[...new Set(unknown)].join(', ')}, which name no event series`,
          })
          return []
        }
        return [{ kind: 'formula', letter, formula, text: item.formula as string, displayName: item.displayName }]
      } catch (error) {
        issues.push({ path: [...path, 'formula'], message: `invalid formula: ${(error as Error).message}` })
        return []
      }
    }
    const segment = item.segment ?? 'event'
    let property: NumericSource | undefined
    if (isPropertySegment(segment) && item.property === undefined)
      issues.push({ path: [...path, 'property'], message: `segment "${segment}" needs "property"` })
    if (!isPropertySegment(segment) && item.property !== undefined)
      issues.push({ path: [...path, 'property'], message: `segment "${segment}" takes no "property"` })
    if (isPropertySegment(segment) && item.property !== undefined) {
      property = numericSource(item.property)
      if (!property)
        issues.push({
          path: [...path, 'property'],
          message: `"${item.property}" is not properties.<key> nor one of ${Object.keys(NUMERIC_COLUMNS).join(', ')}`,
        })
    }
    const { filters, issues: filterIssues, patterns: itemPatterns } = parseFilterList(item.filters ?? [])
    issues.push(...filterIssues.map((issue) => ({ ...issue, path: [...path, ...issue.path] })))
    patterns.push(...patternsUnder(path, itemPatterns))
    filters.forEach((filter, filterIndex) => {
      if (filter.target.kind === 'session' && SESSION_ONLY_ATTRIBUTES.includes(filter.target.attribute)) {
        issues.push({
          path: [...path, 'filters', filterIndex, 'name'],
          message: `"${filter.target.attribute}" describes sessions; chart series count events`,
        })
      }
    })
    const common = { kind: 'event' as const, letter, name: item.name as string, filters, displayName: item.displayName }
    if (!isPropertySegment(segment)) return [{ ...common, segment }]
    return property ? [{ ...common, segment, property }] : []
  })
}

export function parseChart(raw: Record<string, unknown>, scope: Scope): ChartRequest {
  const params = { ...raw }
  const issues = schemaIssues(validateParams, params)
  const typed = params as {
    series?: string
    breakdowns?: string
    breakdownLimit: number
    interval?: Interval
    range: Range
    startDate?: string
    endDate?: string
    timezone?: string
    previous: string
  }
  let items: SeriesItem[] = []
  if (typeof typed.series === 'string') {
    const parsed = parseJson(typed.series, 'series', issues)
    if (parsed !== undefined) {
      // A tree in an item's filters is one issue; the item is checked for its other problems without it.
      const trees = Array.isArray(parsed)
        ? parsed.map((item, index) => treeRefusal((item as { filters?: unknown } | null)?.filters, ['series', index, 'filters']))
        : []
      const untreed = trees.some(Boolean)
        ? (parsed as object[]).map((item, index) => (trees[index] ? { ...item, filters: [] } : item))
        : parsed
      const shape = [...trees.flatMap((tree) => tree ?? []), ...schemaIssues(validateItems, untreed, ['series'])]
      issues.push(...shape)
      const patterns: RegexPattern[] = []
      if (!shape.length) items = parseItems(parsed as RawItem[], issues, patterns)
      issues.push(...regexIssues([{ patterns, runs: 1 }]))
    }
  }
  let breakdowns: Breakdown[] = []
  if (typeof typed.breakdowns === 'string') {
    const parsed = parseJson(typed.breakdowns, 'breakdowns', issues)
    if (parsed !== undefined) {
      const shape = schemaIssues(validateBreakdowns, parsed, ['breakdowns'])
      issues.push(...shape)
      if (!shape.length) {
        breakdowns = (parsed as { name: string }[]).flatMap(({ name }, index) => {
          const source = fieldSource(name)
          if (!source) issues.push({ path: ['breakdowns', index, 'name'], message: `unknown breakdown "${name}"` })
          return source ? [{ name, source }] : []
        })
      }
    }
  }
  return {
    ...windowOrThrow(typed, scope, issues),
    interval: typed.interval,
    previous: typed.previous === 'true',
    items,
    breakdowns,
    breakdownLimit: typed.breakdownLimit,
  }
}
