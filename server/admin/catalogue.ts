// The SQL catalogue (docs/sql/): every statement each route runs, with its params, for the startup check's
// example requests on a fixed project and clock, so that a change to a query reads in review as a SQL diff.
// The breakdowns share one page, and the combined tables' definition is printed by name, so a diff shows
// only the statements that changed.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { COMPACTION_DEFINITION } from '../../queries/sessions/definition'
import type { Params } from '../../queries/core/compiled'
import type { Scope } from '../../queries/core/pipeline'
import { DIMENSIONS, breakdownSql, type Dimension, type DimensionSpec } from '../../queries/core/registry'
import { isRouteTemplate, listSqlFiles, loadTemplate } from '../../queries/core/templates'
import { EXAMPLE_QUERIES, examplesFor } from '../routes/examples'
import { ROUTES, resourceOf, type Route } from '../routes/routes'
import { joinedStatementsOf, statementsOf, type Statement } from '../../queries/run/statements'

const ROOT = path.join(__dirname, '..', '..')
export const CATALOGUE_DIR = path.join(ROOT, 'docs', 'sql')
export const CATALOGUE_COMMAND = 'npm run cli -- explain --catalogue'
/** How a param bound to the combined tables' definition is printed: by name, as its value changes with every build. */
export const DEFINITION_SHOWN = '<COMPACTION_DEFINITION>'
/** The one page of the breakdown routes. */
export const BREAKDOWNS_FILE = 'insights-breakdowns.md'

/** The project, clock and session lookback every catalogued request is compiled for, so the files only change with the code. */
export const CATALOGUE_SCOPE: Scope = Object.freeze({
  project: { id: 'demo', name: 'demo', timezone: 'Europe/Berlin' },
  now: new Date('2024-04-15T10:00:00.000Z'),
  sessionLookbackMs: 24 * 3_600_000,
})

/** One file of the catalogue: its name in docs/sql/ and its Markdown. */
export interface CatalogueFile {
  name: string
  text: string
}

/** `/insights/:projectId/referrer` -> `insights-referrer.md`: the route's path segments but the project. */
export const catalogueFileName = (routePath: string): string =>
  `${routePath
    .split('/')
    .filter((segment) => segment !== '' && segment !== ':projectId')
    .map((segment) => segment.replace(/^:/, ''))
    .join('-')}.md`

/** The URL a route is asked with for one example query string: the project in the path or in the query. */
function exampleUrl(route: Route, query: Record<string, string>, projectId: string): string {
  // A path value the resource reads as a parameter (a profile's id) fills its path segment, not the query string.
  const names = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name)
  const rest = Object.fromEntries(Object.entries(query).filter(([name]) => !names.includes(name)))
  const search = new URLSearchParams(route.projectFrom === 'query' ? { projectId, ...rest } : rest).toString()
  const path = route.path.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(name === 'projectId' ? projectId : (query[name] ?? '')),
  )
  return `${path}${search ? `?${search}` : ''}`
}

/** Query-string parameters as an analyst reads them: one decoded parameter a line. */
const queryLines = (search: string): string[] =>
  [...new URLSearchParams(search)].map(([key, value], index) => `  ${index ? '&' : '?'}${key}=${value}`)

/** A request as an analyst reads it: the path, then its parameters. */
function requestBlock(url: string): string {
  const [pathPart, search = ''] = url.split('?')
  return ['```text', `GET ${pathPart}`, ...queryLines(search), '```'].join('\n')
}

/** The file under sql/ of each route template, by its `@name`. */
const templateFiles = (): Map<string, string> =>
  new Map(
    listSqlFiles()
      .filter(isRouteTemplate)
      .map((file) => [loadTemplate(file).name, `sql/${file}`]),
  )

/** A statement's params as printed: the combined tables' definition by name. */
const shownParams = (params: Readonly<Params>): Params =>
  Object.fromEntries(Object.entries(params).map(([name, value]) => [name, value === COMPACTION_DEFINITION ? DEFINITION_SHOWN : value]))

function statementBlocks(statements: Statement[], heading: string): string[] {
  const files = templateFiles()
  return statements.flatMap(({ label, compiled }, index) => [
    `${heading} Statement ${index + 1}: ${label}`,
    `Template \`${compiled.template}\` (${files.get(compiled.template) ?? 'no file'})${compiled.format ? `, output format ${compiled.format}` : ''}.`,
    ['```sql', compiled.sql, '```'].join('\n'),
    'Params:',
    ['```json', JSON.stringify(shownParams(compiled.params), null, 2), '```'].join('\n'),
  ])
}

/** The statements of one request on the embedded engine and on a server, compiled as the startup check compiles them. */
function requestStatements(route: Route, query: Record<string, string>, scope: Scope): { embedded: Statement[]; server: Statement[] } {
  return {
    embedded: statementsOf(resourceOf(route), { ...query }, scope, true),
    server: statementsOf(resourceOf(route), { ...query }, scope, false),
  }
}

/** The statements of one request; a stream differs by engine, so then both ways are written. */
function requestSection(route: Route, query: Record<string, string>, number: number, scope: Scope): string[] {
  const { embedded, server } = requestStatements(route, query, scope)
  const head = [`## Request ${number}`, requestBlock(exampleUrl(route, query, scope.project.id))]
  if (JSON.stringify(embedded) === JSON.stringify(server)) return [...head, ...statementBlocks(embedded, '###')]
  return [
    ...head,
    '### On the embedded engine (it reads a statement a block at a time)',
    ...statementBlocks(embedded, '####'),
    '### On a ClickHouse server',
    ...statementBlocks(server, '####'),
  ]
}

function scopeLine(scope: Scope): string {
  return `project \`${scope.project.id}\` in ${scope.project.timezone}, clock ${scope.now.toISOString()}, session lookback ${scope.sessionLookbackMs / 3_600_000} h`
}

const GENERATED = `<!-- Written by \`${CATALOGUE_COMMAND}\` from the code: edit the code, then run it again. -->`

function routeFile(route: Route, scope: Scope): CatalogueFile {
  const examples = examplesFor(route)
  const sections = examples.flatMap((query, index) => requestSection(route, query, index + 1, scope))
  const intro = `${route.summary}. Every statement this route runs for ${examples.length} example request(s), exactly as compiled (${scopeLine(scope)}).`
  return { name: catalogueFileName(route.path), text: `${[`# GET ${route.path}`, GENERATED, intro, ...sections].join('\n\n')}\n` }
}

/**
 * The first 12 hex digits of the SHA-256 of statements as the catalogue prints them (label, template, output
 * format, SQL, params): a breakdown's row on the breakdowns' page, which changes with any of its statements.
 */
export function statementsDigest(statements: Statement[]): string {
  const printed = statements.map(({ label, compiled }) => [
    label,
    compiled.template,
    compiled.format ?? '',
    compiled.sql,
    shownParams(compiled.params),
  ])
  return crypto.createHash('sha256').update(JSON.stringify(printed)).digest('hex').slice(0, 12)
}

/** Every statement of a route's example requests: each engine's where they differ. */
function exampleStatements(route: Route, scope: Scope): Statement[] {
  return examplesFor(route).flatMap((query) => {
    const { embedded, server } = requestStatements(route, query, scope)
    return JSON.stringify(embedded) === JSON.stringify(server) ? embedded : [...embedded, ...server]
  })
}

/** What a breakdown groups by, as its row's cells: its column, then its prefix (`''` without one), each with its session column. */
function breakdownCells(name: Dimension): string[] {
  const { column, prefix }: DimensionSpec = DIMENSIONS[name]
  const sql = breakdownSql(name)
  return [`\`${column}\` (\`${sql.value}\`)`, prefix ? `\`${prefix}\` (\`${sql.prefix}\`)` : `none (\`${sql.prefix}\`)`]
}

/**
 * The breakdown routes on one page: the statements of the first, written out, and a row for each breakdown of
 * what it groups by and the digest of its own statements, so that any breakdown's changed statement changes the page.
 */
function breakdownsFile(routes: Route[], scope: Scope): CatalogueFile {
  const [shown] = routes
  const examples = examplesFor(shown)
  const names = routes.map((route) => route.breakdown as Dimension)
  const rows = routes.map((route, index) => {
    const digest = statementsDigest(exampleStatements(route, scope))
    return `| \`${names[index]}\` | ${breakdownCells(names[index]).join(' | ')} | \`${digest}\` |`
  })
  const { value, prefix } = breakdownSql(names[0])
  const intro = [
    `Sessions broken down by one of ${routes.length} breakdowns, each its own route (\`GET /insights/:projectId/<breakdown>\`). ` +
      `They share their templates and their compiler (queries/insights/dimensions.ts): a breakdown's statements are those written out below ` +
      `for \`${names[0]}\`, with the breakdown's name in place of \`'${names[0]}'\`, its column in place of \`${value}\` and its prefix column ` +
      `in place of \`${prefix}\`, and its column and prefix among the attributes the window's sessions carry (each once, beside those the filters name).`,
    `The table lists what each breakdown groups by (queries/core/registry.ts, \`DIMENSIONS\`) and a digest of its statements: the first 12 ` +
      `hex digits of the SHA-256 of every statement and its params that its route runs for the ${examples.length} example request(s) below ` +
      `(${scopeLine(scope)}). A change to any breakdown's statements changes its row. To read a breakdown's statements in full: ` +
      `\`npm run cli -- explain '/insights/demo/${names[names.length - 1]}?range=7d' --timezone ${scope.project.timezone}\`.`,
  ]
  const table = ['| breakdown | groups by (session column) | prefix (session column) | statements |', '|---|---|---|---|', ...rows].join(
    '\n',
  )
  const sections = examples.flatMap((query, index) => requestSection(shown, query, index + 1, scope))
  const title = `# GET /insights/:projectId/<breakdown>: the ${routes.length} breakdowns`
  const text = [title, GENERATED, ...intro, table, `Every statement of \`${shown.path}\`:`, ...sections]
  return { name: BREAKDOWNS_FILE, text: `${text.join('\n\n')}\n` }
}

/** The file a route's statements are written to: its own, or the breakdowns' page. */
const fileOf = (route: Route): string => (route.breakdown ? BREAKDOWNS_FILE : catalogueFileName(route.path))

/** The joined statements the example requests run when every route that joins is asked them at once. */
function joinedFile(routes: Route[], scope: Scope): CatalogueFile | undefined {
  const sections = EXAMPLE_QUERIES.flatMap((query) => {
    const asked = routes.filter((route) => examplesFor(route).includes(query))
    const statements = joinedStatementsOf(asked.map(resourceOf), { ...query }, scope)
    const joining = asked.filter((route) => route.resource.joins)
    return statements.length ? [{ query, statements, joining }] : []
  })
  if (!sections.length) return undefined
  const body = sections.flatMap(({ query, statements, joining }, index) => [
    `## Request ${index + 1}`,
    `Asked at once of ${joining.map((route) => `\`${exampleUrl(route, {}, scope.project.id)}\``).join(', ')}, each with:`,
    ['```text', ...(Object.keys(query).length ? queryLines(new URLSearchParams(query).toString()) : ['(no parameters)']), '```'].join('\n'),
    ...statementBlocks(statements, '###'),
  ])
  const intro = `Requests that wait for a turn together may be answered by one statement. These are the statements when every route that joins is asked the same example request at once (${scopeLine(scope)}).`
  return { name: 'joined.md', text: `${['# Routes asked together', GENERATED, intro, ...body].join('\n\n')}\n` }
}

function indexFile(routes: Route[], files: CatalogueFile[], scope: Scope): CatalogueFile {
  const rows = routes.map((route) => `| \`GET ${route.path}\` | [${fileOf(route)}](${fileOf(route)}) | ${route.summary} |`)
  const joined = files.some((file) => file.name === 'joined.md')
    ? ['[joined.md](joined.md): the statements of routes asked the same request at once.']
    : []
  const text = [
    '# SQL catalogue',
    GENERATED,
    `Every SQL statement a route runs and the params it binds, exactly as compiled, for the startup check's example requests (\`EXAMPLE_QUERIES\` in server/routes/examples.ts): ${scopeLine(scope)}. A route added with its examples appears here; a change to a template or a compiler shows up in review as a diff of these files. ` +
      `The breakdown routes share one page ([${BREAKDOWNS_FILE}](${BREAKDOWNS_FILE})): one breakdown's statements, and a row of what each ` +
      `groups by with a digest of its own statements. A param bound to the definition of the combined tables (\`COMPACTION_DEFINITION\`, ` +
      `a hash of their builds) is printed as \`"${DEFINITION_SHOWN}"\`, not its value, so a changed build changes only the pages whose statements change.`,
    `Regenerate after changing a query: \`${CATALOGUE_COMMAND}\`. The unit test test/unit/sql-catalogue.test.ts fails, naming the file, while these files differ from what the code compiles; when branches that both change queries merge, resolve docs/sql/ by running the command again. The catalogue runs nothing, so a session question's settled check does not run and its statement is compiled with no settled day; at run time it is compiled with the settled days its check returns, and \`explain\` with a data directory runs the check and prints that statement. To explain any other request: \`npm run cli -- explain '/insights/demo/referrer?range=7d' --timezone Europe/Berlin\`.`,
    ['| route | file | what it answers |', '|---|---|---|', ...rows].join('\n'),
    ...joined,
  ]
  return { name: 'README.md', text: `${text.join('\n\n')}\n` }
}

/** Every file of the catalogue, compiled in memory: one per route but the breakdowns' one page, the joined statements, and the index. */
export function compileCatalogue(routes: Route[] = ROUTES, scope: Scope = CATALOGUE_SCOPE): CatalogueFile[] {
  const breakdowns = routes.filter((route) => route.breakdown)
  const files = routes.filter((route) => !route.breakdown).map((route) => routeFile(route, scope))
  if (breakdowns.length) files.splice(routes.indexOf(breakdowns[0]), 0, breakdownsFile(breakdowns, scope))
  const joined = joinedFile(routes, scope)
  if (joined) files.push(joined)
  const names = files.map((file) => file.name)
  const clash = names.find((name, index) => names.indexOf(name) !== index || name === 'README.md')
  if (clash) throw new Error(`Two catalogue files would be named ${clash}: give the routes distinct fixed path segments`)
  return [...files, indexFile(routes, files, scope)]
}

/** Every difference between the catalogue's files and a directory, as lines naming the file; none when they agree. */
export function compareCatalogue(files: CatalogueFile[], dir: string = CATALOGUE_DIR): string[] {
  const shown = (name: string) => {
    const relative = path.relative(ROOT, path.join(dir, name))
    return relative.startsWith('..') ? path.join(dir, name) : relative
  }
  const present = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith('.md')) : []
  const problems = files.flatMap(({ name, text }) => {
    if (!present.includes(name)) return [`${shown(name)} is missing`]
    const lines = fs.readFileSync(path.join(dir, name), 'utf8').split('\n')
    const compiled = text.split('\n')
    const at = compiled.findIndex((line, index) => line !== lines[index])
    if (at === -1 && lines.length === compiled.length) return []
    const line = at === -1 ? compiled.length : at
    return [
      `${shown(name)} differs from what the code compiles from line ${line + 1}:\n    in the file: ${lines[line] ?? '(end of file)'}\n    compiled:    ${compiled[line] ?? '(end of file)'}`,
    ]
  })
  const stale = present
    .filter((name) => !files.some((file) => file.name === name))
    .map((name) => `${shown(name)} is no route's (the route was removed or renamed)`)
  return [...problems, ...stale]
}

/** Writes the catalogue to `dir`, removing Markdown files of routes that are gone; returns the files it changed. */
export function writeCatalogue(files: CatalogueFile[], dir: string = CATALOGUE_DIR): string[] {
  fs.mkdirSync(dir, { recursive: true })
  const changed = files
    .filter(({ name, text }) => {
      const file = path.join(dir, name)
      if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return false
      fs.writeFileSync(file, text)
      return true
    })
    .map((file) => file.name)
  const stale = fs.readdirSync(dir).filter((name) => name.endsWith('.md') && !files.some((file) => file.name === name))
  for (const name of stale) fs.rmSync(path.join(dir, name))
  return [...changed, ...stale]
}
