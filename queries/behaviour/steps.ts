// Steps of the behaviour questions: an event condition `{ name, filters }` given as JSON or as a plain
// event name, parsed with every problem listed and compiled over each event's own columns.
import { mergeParams, type Fragment, type Params } from '../core/compiled'
import type { Issue } from '../core/errors'
import { SESSION_ONLY_ATTRIBUTES, compileFilter, parseFilterList, type Filter } from '../core/filters'
import { patternsUnder, type RegexPattern } from '../core/regex-budget'
import { compileSchema, schemaIssues } from '../core/validate'

export interface Step {
  /** An event name, or `*` for any event. */
  name: string
  filters: Filter[]
}

const stepSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  // `filters` is checked by parseFilterList, which names a filter tree given there in one line.
  properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, filters: {} },
}
const validateStep = compileSchema(stepSchema, { coerce: false, keyNoun: 'key' })

/** Filters on event columns: a session-only attribute (the entry page) is not a column of an event. */
export function eventColumnIssues(filters: Filter[], path: (string | number)[]): Issue[] {
  return filters.flatMap((filter, index) =>
    filter.target.kind === 'session' && SESSION_ONLY_ATTRIBUTES.includes(filter.target.attribute)
      ? [
          {
            path: [...path, index, 'name'],
            message: `"${filter.target.attribute}" describes sessions; steps and their filters read each event's own columns`,
          },
        ]
      : [],
  )
}

/**
 * A step already read from JSON (an object, or a plain name); undefined with its issues when invalid. Its regex
 * patterns go to `patterns`, for the request's regex check (core/regex-budget.ts).
 */
export function parseStepValue(value: unknown, path: (string | number)[], issues: Issue[], patterns: RegexPattern[]): Step | undefined {
  if (typeof value === 'string') {
    if (value.length === 0 || value.length > 200) {
      issues.push({ path, message: 'a step name has 1 to 200 characters' })
      return undefined
    }
    return { name: value, filters: [] }
  }
  const shape = schemaIssues(validateStep, value, path)
  if (shape.length) {
    issues.push(...shape)
    return undefined
  }
  const raw = value as { name: string; filters?: unknown[] }
  const parsed = parseFilterList(raw.filters ?? [])
  patterns.push(...patternsUnder(path, parsed.patterns))
  const filterIssues = [...parsed.issues, ...eventColumnIssues(parsed.filters, ['filters'])]
  issues.push(...filterIssues.map((issue) => ({ ...issue, path: [...path, ...issue.path] })))
  return filterIssues.length ? undefined : { name: raw.name, filters: parsed.filters }
}

/** A step parameter's text: URL-encoded JSON (`{"name":...}`) or a plain event name. */
export function parseStepText(text: string, path: (string | number)[], issues: Issue[], patterns: RegexPattern[]): Step | undefined {
  if (!text.trimStart().startsWith('{')) return parseStepValue(text, path, issues, patterns)
  try {
    return parseStepValue(JSON.parse(text), path, issues, patterns)
  } catch (error) {
    issues.push({ path, message: `the step is not valid JSON: ${(error as Error).message}` })
    return undefined
  }
}

/**
 * Steps compiled once, in a plan, with the names their one statement binds them by: each step's condition over
 * an event row, its own values bound as `<prefix>_...` (`s0_name`, `s0_f1_v`), and the request's filters, ANDed
 * into every condition as SQL only and bound once as `f<index>`.
 */
export interface CompiledSteps {
  /** One condition per step, in order; `1` for `*` unfiltered. */
  steps: Fragment[]
  /** The values of the request's filters, which the statement binds once wherever it places the conditions. */
  filterParams: Params
}

/** Plan helper: the conditions of `steps`, each named by its `prefix`, with the request's `filters` ANDed in. */
export function compileSteps(steps: { prefix: string; step: Step }[], filters: Filter[]): CompiledSteps {
  const shared = compileSharedFilters(filters)
  return { steps: steps.map(({ prefix, step }) => compileStep(step, prefix, shared)), filterParams: shared?.params ?? {} }
}

/** A step's condition over an event row, ANDed with the request's filters (SQL only). */
function compileStep(step: Step, prefix: string, shared: Fragment | null): Fragment {
  const parts: Fragment[] = []
  if (step.name !== '*') parts.push({ sql: `name = {${prefix}_name:String}`, params: { [`${prefix}_name`]: step.name } })
  parts.push(...step.filters.map((filter, index) => compileFilter(filter, `${prefix}_f${index}`, 'events')))
  if (shared) parts.push({ sql: shared.sql, params: {} })
  if (parts.length === 0) return { sql: '1', params: {} }
  return {
    sql: `(${parts.map((part) => part.sql).join(' AND ')})`,
    params: mergeParams(
      parts.map((part) => part.params),
      `step ${prefix}`,
    ),
  }
}

/** The request's `filters` over event columns, each bound once as `f<index>`; null without any. */
function compileSharedFilters(filters: Filter[]): Fragment | null {
  if (filters.length === 0) return null
  const parts = filters.map((filter, index) => compileFilter(filter, `f${index}`, 'events'))
  return {
    sql: parts.map((part) => part.sql).join(' AND '),
    params: mergeParams(
      parts.map((part) => part.params),
      'the filters',
    ),
  }
}
