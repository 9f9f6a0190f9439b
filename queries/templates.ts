// Loads the reviewed SQL templates of sql/ and checks them: a template's `{name:Type}` placeholders are
// its parameter spec, and binding a value it does not use (or leaving one unbound) is an error.
import fs from 'node:fs'
import path from 'node:path'

const SQL_DIR = path.join(__dirname, '..', 'sql')
const PLACEHOLDER = /\{(\w+):([^{}]+?)\}/g
const MARKER = /\/\* @(\w+) \*\//g

export interface Template {
  name: string
  file: string
  text: string
  placeholders: Map<string, string>
  markers: string[]
}

function parseTemplate(file: string, text: string): Template {
  const name = /^-- @name (\S+)/m.exec(text)?.[1]
  if (!name) throw new Error(`SQL template ${file} has no "-- @name" header`)
  const placeholders = new Map<string, string>()
  for (const [, param, type] of text.matchAll(PLACEHOLDER)) placeholders.set(param, type.trim())
  const markers = [...text.matchAll(MARKER)].map((match) => match[1])
  return { name, file, text, placeholders, markers }
}

const cache = new Map<string, Template>()

/** A template by its path under sql/, e.g. `insights/live.sql`. */
export function loadTemplate(file: string): Template {
  let template = cache.get(file)
  if (!template) {
    template = parseTemplate(file, fs.readFileSync(path.join(SQL_DIR, file), 'utf8'))
    cache.set(file, template)
  }
  return template
}

/** Every placeholder `{name:Type}` in a SQL text (templates plus inserted fragments). */
export function placeholdersOf(sql: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const [, param, type] of sql.matchAll(PLACEHOLDER)) found.set(param, type.trim())
  return found
}

/** Fills `/* @marker *\/` slots with fragments; every marker of the template must be given. */
export function fillMarkers(template: Template, fragments: Record<string, string>): string {
  const unknown = Object.keys(fragments).filter((key) => !template.markers.includes(key))
  if (unknown.length) throw new Error(`Template ${template.name} has no marker(s) ${unknown.join(', ')}`)
  return template.text.replace(MARKER, (_, marker: string) => {
    if (!(marker in fragments)) throw new Error(`Template ${template.name}: marker @${marker} not filled`)
    return fragments[marker]
  })
}

/** Throws unless the bound params are exactly the placeholders of the SQL. */
export function checkBinding(templateName: string, sql: string, params: Record<string, unknown>): void {
  const wanted = placeholdersOf(sql)
  const unbound = [...wanted.keys()].filter((key) => !(key in params))
  const unused = Object.keys(params).filter((key) => !wanted.has(key))
  if (unbound.length || unused.length) {
    throw new Error(`Template ${templateName}: unbound placeholders [${unbound.join(', ')}], unused params [${unused.join(', ')}]`)
  }
}
