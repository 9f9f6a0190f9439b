// The parameters of `GET /insights/:projectId/table` beside the shared ones: the dimensions and metrics (each a
// name of a closed table), the goal of `conversion_rate` (a filter tree's `performed` leaf), the order and the
// default page size. Every problem, of these and of the shared parameters, is in one 400.
import type { Issue } from '../core/errors'
import { TREE_FILTERS_PROPERTY, readFiltersOrTree, parseFilterTree, type Performed } from '../core/filter-tree'
import type { Scope } from '../core/pipeline'
import { DIMENSIONS, type SessionField } from '../core/registry'
import { regexIssues } from '../core/regex-budget'
import { compileSchema } from '../core/validate'
import { comparedSchema, pagedSchema, parseWithOwnParams, type InsightQuery } from './insight-params'

/** The dimensions a table groups by: every breakdown's column, and the entry and exit paths. */
export const TABLE_DIMENSIONS = {
  ...(Object.fromEntries(Object.entries(DIMENSIONS).map(([name, spec]) => [name, spec.column])) as {
    readonly [N in keyof typeof DIMENSIONS]: (typeof DIMENSIONS)[N]['column']
  }),
  entry_path: 'entry_path',
  exit_path: 'exit_path',
} as const satisfies Record<string, SessionField>
export type TableDimension = keyof typeof TABLE_DIMENSIONS

export const TABLE_METRICS = [
  'visitors',
  'sessions',
  'pageviews',
  'bounce_rate',
  'avg_session_duration',
  'views_per_session',
  'events',
  'revenue',
  'conversion_rate',
] as const
export type TableMetric = (typeof TABLE_METRICS)[number]

export const SORT_ORDERS = ['desc', 'asc'] as const
export type SortOrder = (typeof SORT_ORDERS)[number]

export const MAX_TABLE_DIMENSIONS = 3
export const MAX_TABLE_METRICS = 8
export const TABLE_DEFAULT_LIMIT = 100
/** Rows a page may skip: the engine sorts and drops every one of them; 100 pages of the largest size. */
export const MAX_TABLE_OFFSET = 100_000

export interface TableQuery extends InsightQuery {
  dimensions: TableDimension[]
  metrics: TableMetric[]
  /** The goal `conversion_rate` counts: given exactly when that metric is asked. */
  goal?: Performed
  orderBy: { metric: TableMetric; order: SortOrder }
}

const textOrList = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 20 }] }

const ownProperties = {
  dimensions: {
    ...textOrList,
    description: `1 to ${MAX_TABLE_DIMENSIONS} distinct dimensions, a comma list or repeated: ${Object.keys(TABLE_DIMENSIONS).join(', ')}`,
  },
  metrics: {
    ...textOrList,
    description: `1 to ${MAX_TABLE_METRICS} distinct metrics, a comma list or repeated: ${TABLE_METRICS.join(', ')}`,
  },
  goal: {
    ...TREE_FILTERS_PROPERTY,
    description:
      'URL-encoded JSON: a `performed` leaf of a filter tree, `{"performed":{"name":"signup","filters":[...]}}`; required with the `conversion_rate` metric and only with it',
  },
  orderBy: {
    type: 'string',
    pattern: `^(${TABLE_METRICS.join('|')}):(${SORT_ORDERS.join('|')})$`,
    description:
      '`metric:desc` or `metric:asc`, a metric asked for; default the first metric, descending. Ties by the dimension values ascending, nulls last',
  },
}

export const tableSchema = {
  ...comparedSchema,
  required: ['dimensions', 'metrics'],
  properties: {
    ...comparedSchema.properties,
    limit: { ...pagedSchema.properties.limit, default: TABLE_DEFAULT_LIMIT },
    ...ownProperties,
  },
}

const validateOwn = compileSchema({ type: 'object', required: ['dimensions', 'metrics'], properties: ownProperties })

const listOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((item) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean)

/** A list of distinct names of `known`, between 1 and `max` of them; each problem at its own path. */
function readNames<N extends string>(
  value: unknown,
  { name, known, max, issues }: { name: string; known: readonly string[]; max: number; issues: Issue[] },
): N[] {
  if (value === undefined) return []
  const names = listOf(value)
  if (names.length === 0 || names.length > max) {
    issues.push({ path: [name], message: `"${name}" takes 1 to ${max} names, got ${names.length}` })
  }
  names.forEach((item, index) => {
    if (!known.includes(item))
      issues.push({ path: [name, index], message: `unknown ${name.slice(0, -1)} "${item}"; known: ${known.join(', ')}` })
    else if (names.indexOf(item) !== index) issues.push({ path: [name, index], message: `"${item}" is given twice in "${name}"` })
  })
  return names as N[]
}

/** The goal: a JSON `performed` leaf. Its regex patterns count with the filters' against the request's budget. */
function readGoal(own: Record<string, unknown>, filtersText: unknown, issues: Issue[]): Performed | undefined {
  if (typeof own.goal !== 'string') return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(own.goal)
  } catch {
    issues.push({ path: ['goal'], message: '"goal" must be JSON: {"performed":{"name":...,"filters":[...]}}' })
    return undefined
  }
  if (typeof parsed !== 'object' || parsed === null || !Object.hasOwn(parsed, 'performed')) {
    issues.push({ path: ['goal'], message: '"goal" must be a performed leaf: {"performed":{"name":...,"filters":[...]}}' })
    return undefined
  }
  const { tree, issues: goalIssues, patterns } = parseFilterTree(parsed, ['goal'])
  issues.push(...goalIssues)
  const filterPatterns = readFiltersOrTree(typeof filtersText === 'string' ? filtersText : undefined).patterns
  // The filters' own problems are the shared parse's; the budget over both is reported at the goal's patterns.
  const budget = regexIssues([
    { patterns: filterPatterns, runs: 1 },
    { patterns, runs: 1 },
  ]).filter((issue) => issue.path[0] === 'goal')
  issues.push(...budget)
  return tree?.kind === 'performed' && budget.length === 0 ? tree.performed : undefined
}

function readOrder(own: Record<string, unknown>, metrics: TableMetric[], issues: Issue[]): TableQuery['orderBy'] {
  if (typeof own.orderBy !== 'string') return { metric: metrics[0] ?? 'sessions', order: 'desc' }
  const [metric, order] = own.orderBy.split(':') as [TableMetric, SortOrder]
  if (TABLE_METRICS.includes(metric) && metrics.length > 0 && !metrics.includes(metric)) {
    issues.push({ path: ['orderBy'], message: `"orderBy" names "${metric}", which is not among the metrics asked: ${metrics.join(', ')}` })
  }
  return { metric, order }
}

/** A page past MAX_TABLE_OFFSET rows is a 400 (a cursor or limit that is not a number is the shared parse's). */
function checkOffset(raw: Record<string, unknown>, issues: Issue[]): void {
  const cursor = Number(raw.cursor ?? 1)
  const limit = Number(raw.limit)
  if (Number.isSafeInteger(cursor) && Number.isSafeInteger(limit) && (cursor - 1) * limit > MAX_TABLE_OFFSET) {
    issues.push({
      path: ['cursor'],
      message: `page ${cursor} of ${limit} rows would skip ${(cursor - 1) * limit} rows, more than ${MAX_TABLE_OFFSET}: narrow the filters or the window`,
    })
  }
}

/** The table's own params, read after the schema's check; `filters` is read for the regex budget only. */
function ownParams(raw: Record<string, unknown>) {
  return {
    names: ['dimensions', 'metrics', 'goal', 'orderBy'],
    validator: validateOwn,
    read(own: Record<string, unknown>, issues: Issue[]) {
      const dimensions = readNames<TableDimension>(own.dimensions, {
        name: 'dimensions',
        known: Object.keys(TABLE_DIMENSIONS),
        max: MAX_TABLE_DIMENSIONS,
        issues,
      })
      const metrics = readNames<TableMetric>(own.metrics, { name: 'metrics', known: TABLE_METRICS, max: MAX_TABLE_METRICS, issues })
      const goal = readGoal(own, raw.filters, issues)
      const converts = metrics.includes('conversion_rate')
      if (converts && own.goal === undefined)
        issues.push({ path: ['goal'], message: '"goal" is required with the metric "conversion_rate"' })
      if (!converts && own.goal !== undefined) {
        issues.push({ path: ['goal'], message: '"goal" is only taken with the metric "conversion_rate", which is not asked' })
      }
      checkOffset(raw, issues)
      return { dimensions, metrics, ...(goal ? { goal } : {}), orderBy: readOrder(own, metrics, issues) }
    },
  }
}

/** Parses a table request: the shared params, its own, the default page size and the cap on skipped rows, in one 400. */
export function parseTableParams(raw: Record<string, unknown>, scope: Scope): TableQuery {
  const withLimit = { ...raw, limit: raw.limit ?? String(TABLE_DEFAULT_LIMIT) }
  return parseWithOwnParams(withLimit, scope, ownParams(withLimit), 'compared')
}
