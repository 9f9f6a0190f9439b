// A compiled query: the exact SQL, its bound values and its settings, frozen. Compiling never runs it.
import { checkBinding, fillMarkers, loadTemplate, placeholdersOf, type Template } from './templates'

export type Params = Record<string, string | number | boolean | string[] | number[]>

/** Engine settings of one statement (e.g. its `priority`), applied by whatever runs it, for that statement only. */
export type Settings = Record<string, string | number>

/** How the engine writes a statement's result: JSON objects a line, or one row of raw text fields. */
export type OutputFormat = 'JSONEachRow' | 'TabSeparatedRaw'

export interface CompiledQuery {
  readonly template: string
  readonly sql: string
  readonly params: Readonly<Params>
  /** JSONEachRow unless the statement says otherwise. */
  readonly format?: OutputFormat
  /**
   * Settings of this statement alone, given to the engine beside it (never spliced into its SQL): the
   * runners apply them and leave the connection's own settings as they were for the next statement.
   */
  readonly settings?: Readonly<Settings>
}

/** `query` run with `settings` (over any it had), frozen. */
export function withSettings(query: CompiledQuery, settings: Settings): CompiledQuery {
  return Object.freeze({ ...query, settings: Object.freeze({ ...query.settings, ...settings }) })
}

/** The rows of a JSONEachRow output, one JSON object a line. */
export function parseLines<T>(text: string): T[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T)
}

export interface Fragment {
  sql: string
  params: Params
}

/** Several fragments' params as one object; a param bound twice is an error (`where` names the statement). */
export function mergeParams(parts: Params[], where: string): Params {
  const merged: Params = {}
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key in merged) throw new Error(`Fragment param ${key} collides in ${where}`)
      merged[key] = value
    }
  }
  return merged
}

/** The marker texts of `fragments`, and the `own` params with every fragment's. */
function gatherFragments(
  template: Template,
  own: Params,
  fragments: Record<string, Fragment>,
): { texts: Record<string, string>; params: Params } {
  const texts = Object.fromEntries(Object.entries(fragments).map(([marker, fragment]) => [marker, fragment.sql]))
  const parts = [own, ...Object.values(fragments).map((fragment) => fragment.params)]
  return { texts, params: mergeParams(parts, template.name) }
}

/** Renders a template with its marker fragments and params, checking every placeholder is bound once. */
export function compileTemplate(file: string, params: Params, fragments: Record<string, Fragment> = {}): CompiledQuery {
  const template = loadTemplate(file)
  const gathered = gatherFragments(template, params, fragments)
  const sql = fillMarkers(template, gathered.texts).trim()
  checkBinding(template.name, sql, gathered.params)
  return Object.freeze({ template: template.name, sql, params: Object.freeze(gathered.params) })
}

/** Conditions as `AND ...` lines to append to a WHERE or HAVING clause (empty when there are none). */
export function andClauses(parts: Fragment[], indent = '  '): Fragment {
  return {
    sql: parts.map((part) => `\n${indent}AND ${part.sql}`).join(''),
    params: mergeParams(
      parts.map((part) => part.params),
      'AND clauses',
    ),
  }
}

const withoutHeader = (sql: string) => sql.replace(/^--.*\n/gm, '')

/** SQL that binds nothing of its own (its placeholders are the statement's). */
export const sqlOnly = (sql: string): Fragment => ({ sql, params: {} })

/**
 * A template used inside a statement that binds the values it reads (`context`, e.g. the window and the
 * filters' values): it brings only its fragments' params, so the statement binds each param once.
 */
/**
 * A template of fixed SQL (no placeholder, no marker) as a fragment; with `newLine`, on a line of its own at that
 * indent (its other lines are indented in the file).
 */
export function fixedFragment(file: string, newLine?: string): Fragment {
  const { sql } = compileInner(file, {})
  return sqlOnly(newLine === undefined ? sql : `\n${newLine}${sql}`)
}

export function compileInner(file: string, context: Params, fragments: Record<string, Fragment> = {}): Fragment {
  const template = loadTemplate(file)
  const gathered = gatherFragments(template, {}, fragments)
  const sql = withoutHeader(fillMarkers(template, gathered.texts)).trim()
  const unbound = [...placeholdersOf(sql).keys()].filter((key) => !(key in context) && !(key in gathered.params))
  if (unbound.length) throw new Error(`Template ${template.name}: unbound placeholders [${unbound.join(', ')}]`)
  return { sql, params: gathered.params }
}
