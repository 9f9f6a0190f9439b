// The parameters the behaviour questions share (dates, timezone, filters) and their cost caps, decided
// before anything runs: every problem of a request is collected into one 400.
import { DAY_MS, RANGES, requestWindow, type Range, type Window } from '../core/dates'
import { invalid, type Issue } from '../core/errors'
import { readFilters, type Filter } from '../core/filters'
import { readFiltersOrTree, type FilterTree } from '../core/filter-tree'
import type { RegexPattern } from '../core/regex-budget'
import type { Scope } from '../core/pipeline'
import { compileSchema, schemaIssues, type Validator } from '../core/validate'

/**
 * The longest window a behaviour question reads: a year and a few days, so `12m`, `yearToDate` and
 * `lastYear` fit. These questions scan events (not rollups), so their cost follows the window.
 */
export const MAX_WINDOW_DAYS = 370

export const dateProperties = {
  startDate: { type: 'string' },
  endDate: { type: 'string' },
  range: { type: 'string', enum: RANGES, default: '7d' },
  timezone: { type: 'string' },
  filters: { type: 'string' },
}

/** A behaviour route's query schema: the window's parameters, then its own `properties` (which may replace them). */
export function behaviourSchema<P extends Record<string, object>>(properties: P, required?: string[]) {
  return {
    type: 'object',
    additionalProperties: false,
    ...(required ? { required } : {}),
    properties: { ...dateProperties, ...properties },
  }
}

export interface BehaviourBase {
  projectId: string
  timezone: string
  window: Window
  filters: Filter[]
  /** A filter tree, for a question whose `filters` select sessions and take one (paths). */
  tree?: FilterTree
}

/** A validator for a behaviour route's query string (its own properties beside the shared ones). */
export const behaviourValidator = (schema: object): Validator<unknown> => compileSchema(schema)

/**
 * Reads the shared parameters into `issues` (the schema's, the filters', the window's and its cap), and
 * the typed params for the route's own; the caller throws when `issues` is not empty. `trees`: the
 * question's filters select sessions, and may be a tree. `patterns`: the filters' regex patterns, which the
 * route counts with its steps' against the request's one budget (core/regex-budget.ts).
 */
export function parseBehaviourBase(
  raw: Record<string, unknown>,
  scope: Scope,
  validator: Validator<unknown>,
  issues: Issue[],
  options: { trees?: boolean } = {},
): { base?: BehaviourBase; params: Record<string, unknown>; patterns: RegexPattern[] } {
  const params = { ...raw }
  issues.push(...schemaIssues(validator, params))
  const typed = params as { startDate?: string; endDate?: string; range: Range; timezone?: string; filters?: string }
  const text = typeof typed.filters === 'string' ? typed.filters : undefined
  const {
    filters,
    tree,
    issues: filterIssues,
    patterns,
  }: { filters: Filter[]; tree?: FilterTree; issues: Issue[]; patterns: RegexPattern[] } = options.trees
    ? readFiltersOrTree(text)
    : readFilters(text)
  issues.push(...filterIssues)
  const { timezone, window } = requestWindow(typed, { projectZone: scope.project.timezone, now: scope.now, issues })
  if (window && window.end.getTime() - window.start.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
    issues.push({ path: ['startDate'], message: `the window may span at most ${MAX_WINDOW_DAYS} days for this question` })
  }
  if (!window) return { params, patterns }
  return { base: { projectId: scope.project.id, timezone, window, filters, ...(tree ? { tree } : {}) }, params, patterns }
}

/** Throws the 400 of every issue, or gives the base when there are none. */
export function baseOrThrow(base: BehaviourBase | undefined, issues: Issue[]): BehaviourBase {
  if (issues.length || !base) throw invalid(issues)
  return base
}
