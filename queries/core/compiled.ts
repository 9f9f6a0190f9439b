// A compiled query: the exact SQL, its bound values and its settings, frozen. Compiling never runs it.
import { checkBinding, fillMarkers, loadTemplate } from './templates'

export type Params = Record<string, string | number | boolean | string[] | number[]>

export interface CompiledQuery {
  readonly template: string
  readonly sql: string
  readonly params: Readonly<Params>
}

export interface Fragment {
  sql: string
  params: Params
}

/** Renders a template with its marker fragments and params, checking every placeholder is bound. */
export function compileTemplate(file: string, params: Params, fragments: Record<string, Fragment> = {}): CompiledQuery {
  const template = loadTemplate(file)
  const allParams: Params = { ...params }
  const texts: Record<string, string> = {}
  for (const [marker, fragment] of Object.entries(fragments)) {
    texts[marker] = fragment.sql
    for (const [key, value] of Object.entries(fragment.params)) {
      // Fragments may share the statement's own params (projectId, the window) but never redefine them.
      if (key in allParams && JSON.stringify(allParams[key]) !== JSON.stringify(value)) {
        throw new Error(`Fragment param ${key} collides in ${template.name}`)
      }
      allParams[key] = value
    }
  }
  const sql = fillMarkers(template, texts).trim()
  checkBinding(template.name, sql, allParams)
  return Object.freeze({ template: template.name, sql, params: Object.freeze(allParams) })
}

/** Conditions as `AND ...` lines to append to a WHERE or HAVING clause (empty when there are none). */
export function andClauses(parts: Fragment[], indent = '  '): Fragment {
  return { sql: parts.map((part) => `\n${indent}AND ${part.sql}`).join(''), params: Object.assign({}, ...parts.map((part) => part.params)) }
}

/**
 * A template used inside another statement: given the statement's params, it keeps those its own text
 * names (its fragments bring theirs).
 */
export function compileFragment(file: string, params: Params, fragments: Record<string, Fragment> = {}): Fragment {
  const own = loadTemplate(file).placeholders
  const compiled = compileTemplate(file, Object.fromEntries(Object.entries(params).filter(([key]) => own.has(key))), fragments)
  return { sql: compiled.sql.replace(/^--.*\n/gm, ''), params: { ...compiled.params } }
}
