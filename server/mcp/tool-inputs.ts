// The pieces of the MCP tools' input schemas (JSON Schema, as the routes' own) and the steps that turn a tool's
// arguments into its route's query string: renamed, defaulted, attribute arguments folded into `filters`.
import { RANGES } from '../../queries/core/dates'

/** A tool's arguments as the client sent them (checked against the tool's schema before they are mapped). */
export type ToolArguments = Record<string, unknown>

/** OpenPanel's `startDate` / `endDate`, plus Quarry's `range` and `timezone`. */
export const dateInputs = {
  startDate: { type: 'string', description: 'Start date in YYYY-MM-DD format (e.g. 2024-01-01). Defaults to 30 days ago.' },
  endDate: { type: 'string', description: 'End date in YYYY-MM-DD format (e.g. 2024-03-31). Defaults to today.' },
  range: { enum: RANGES, description: 'A named range instead of dates (7d = today and the 6 days before); 30d when no date is given' },
  timezone: { type: 'string', description: "IANA time zone of the dates and buckets (the project's by default)" },
} as const

/** Quarry's `filters`: a flat array of filters, or a filter tree (and, or, not, session and performed leaves). */
export const filtersInput = {
  filters: {
    type: ['array', 'object'],
    description:
      'A flat array of filters [{ name, operator, value: [...] }] (ANDed), or a filter tree { and | or: [...] }, { not: node }, ' +
      '{ performed: { name, filters } } with session leaves; the route says which it takes (docs/api/filters.md)',
  },
} as const

/** A route's `filters` parameter: the tool's argument (if any) and its attribute arguments, ANDed, as JSON text. */
export function foldFilters(args: ToolArguments, attributes: Record<string, string>): string | undefined {
  const leaves = Object.entries(attributes)
    .filter(([argument]) => typeof args[argument] === 'string')
    .map(([argument, name]) => ({ name, operator: 'is', value: [args[argument]] }))
  const given = args.filters
  if (given === undefined) return leaves.length ? JSON.stringify(leaves) : undefined
  if (Array.isArray(given)) return JSON.stringify([...given, ...leaves])
  return JSON.stringify(leaves.length ? { and: [given, ...leaves] } : given)
}

/** A route's query string, as the gateway's query parser reads one: a value per name, a list where it repeats. */
export type RouteQuery = Record<string, string | string[]>

/** A value as a query string carries it: text as is, a list of texts repeated, anything else as its JSON text. */
function queryValue(value: unknown): string | string[] {
  if (typeof value === 'string') return value
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value
  return JSON.stringify(value)
}

/**
 * A route's query string from a tool's arguments: each argument under its route name (`rename`, its own name
 * otherwise), those in `drop` left out, then `fixed` for whatever is still unset.
 */
export function routeParams(
  args: ToolArguments,
  mapping: { rename?: Record<string, string>; drop?: readonly string[]; fixed?: Record<string, string> },
): RouteQuery {
  const params: RouteQuery = {}
  for (const [argument, value] of Object.entries(args)) {
    if (value === undefined || mapping.drop?.includes(argument)) continue
    params[mapping.rename?.[argument] ?? argument] = queryValue(value)
  }
  return { ...mapping.fixed, ...params }
}

/** OpenPanel's tools read the last 30 days when no date is given; a route's own default is 7 days. */
export const withDefaultWindow = (args: ToolArguments): Record<string, string> =>
  args.startDate === undefined && args.endDate === undefined && args.range === undefined ? { range: '30d' } : {}
