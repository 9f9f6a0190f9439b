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
      if (key in allParams) throw new Error(`Fragment param ${key} collides in ${template.name}`)
      allParams[key] = value
    }
  }
  const sql = fillMarkers(template, texts).trim()
  checkBinding(template.name, sql, allParams)
  return Object.freeze({ template: template.name, sql, params: Object.freeze(allParams) })
}
