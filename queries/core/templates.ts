// Loads the reviewed SQL templates of sql/ and checks them: a template's `{name:Type}` placeholders are
// its parameter spec, and binding a value it does not use (or leaving one unbound) is an error. At
// startup, `checkTemplates` checks every .sql file under sql/.
import fs from 'node:fs'
import path from 'node:path'
import { readReturns, type Returns } from './returns'

export const SQL_DIR = path.join(__dirname, '..', '..', 'sql')
const PLACEHOLDER = /\{(\w+):([^{}]+?)\}/g
const MARKER = /\/\* @(\w+) \*\//g

/** The slots compilers fill in templates (closed set): `/* @name *\/` in a template names one of these. */
/** The template folders the gateway's routes compile; admin, control and seed SQL is run by its own code. */
export const isRouteTemplate = (file: string): boolean => /^(insights|export|behaviour|sessions)\//.test(file)

export const MARKERS = {
  aggregate: "a chart segment's aggregate",
  array_join: 'the ARRAY JOIN of a group breakdown',
  at: 'the time a chart places an event by: created_at, or the start of its hour',
  attributes: 'the session attributes a query reads (or a compaction builds), as argMin columns',
  breakdowns: 'every breakdown as (name, prefix, value) over a settled session (session rollup)',
  breakdown_value: "the breakdown value of an event row, or '' without a breakdown (funnel)",
  bucket: 'the time bucket of an event',
  cells: 'the CSV cells of an export row, quoted and neutralised',
  dimensions: 'the registry names of the breakdowns a session rollup read counts, as text',
  conditions: 'AND conditions on events (names, filters, keyset)',
  entry_value: "a funnel group's breakdown value: its earliest entry event's (ties by id), or '' without a breakdown",
  entry_join: "the join with the entry counts of the window's sessions (pages)",
  entry_match: "which entry pages the window's sessions are counted by (pages)",
  event_bucket: 'the time bucket of an event (metrics revenue)',
  event_filters: 'conditions on events for event-field filters',
  group_key: 'who moves through a funnel: the session or visitor column',
  group_limit: 'the bound number of top groups a chart item keeps (its own param)',
  grouping_sets: 'the grouping sets of breakdowns asked together, one per breakdown',
  ids: 'the profile ids an export looks up (bound values, or the rows of a chunk)',
  includes: 'the export columns `includes` adds',
  job: 'the WITH clause of the day a compaction builds: its day, number and read range (admin/compaction-job.sql)',
  item: "a chart item's number, bound as its own param",
  kept_sessions: "the WHERE keeping the window's sessions of both sources by a filter tree that reads events, or nothing",
  labels: 'the breakdown labels of a chart group',
  leaf_bits: "an event's bit mask of the performed leaves of a filter tree it matches, bit n for leaf n (performed sessions)",
  member: 'which of the breakdowns asked together a grouped row answers (in a session rollup read, its column, or none)',
  mutations: "the mutations table the data version or a compaction reads: system.mutations, or every replica's on a cluster",
  members: 'each breakdown asked together as (index, prefix, value) over a regrouped session',
  node_event: 'which events are nodes of a path: page views, or every event (paths)',
  node_label: 'the label of a path node: the page path or the event name (paths)',
  name: "the breakdown column (or, breakdowns asked together, each one's)",
  new_events: 'the staged events an import moves (ids the project does not hold yet)',
  performed: "the condition of a filter tree's performed leaves on an event (performed sessions)",
  performed_cte: "a filter tree's performed sessions named `performed_sessions` first in the statement's WITH, or nothing",
  page_condition: "the page-only event filters over a stored page's origin and path, compiled by the plan",
  performed_scan: "the scan of a filter tree's performed sessions, compiled by the plan (queries/core/filter-tree.ts)",
  restriction: "a filter tree's restriction of the window's sessions that reads events, compiled by the plan",
  performed_with: "a WITH naming a filter tree's performed sessions `performed_sessions` for the whole statement, or nothing",
  period_number: "the engine's relative number (in the request's zone) of the retention period holding an event",
  first_period_number: "the relative number of the retention period holding the window's start, which periods are numbered from",
  return_words: "a visitor's return periods as bits, 255 to a word, numbered from the window's first period (retention)",
  relative_returns: "a visitor's return words shifted to start at their cohort's period (retention)",
  page_identity: "what tells a session's pages apart as its views are ordered (pages)",
  page_order: 'the ORDER BY of page rows: a sort key from a closed table, nulls last, then origin and path (pages)',
  page_search: 'the WHERE keeping the page rows whose path or title holds the bound search, or nothing (pages)',
  on_cluster: "ON CLUSTER and the cluster's name on a cluster, or nothing (a compaction's statements on the shards' local tables)",
  partial_columns: 'the columns of the partial row of `partial_row`, in its order',
  partial_row: "the select list of the partial row one block of events writes per session (the sessions view's)",
  parts:
    "the parts table the data version or a compaction reads: system.parts, or every replica's (data version) or one replica of each shard's (compaction) on a cluster",
  prefix: 'the breakdown prefix column',
  profiles: 'the profiles joined to a CSV chunk',
  return_match: 'whether an event matches the return step (retention)',
  return_test: "whether a visitor's returns count for a period: on it, or on it or after (retention)",
  rank: 'the rank of a chart group',
  revenue: 'the revenue rows of a metrics window: events, or hours from a projection',
  revenue_filters: 'conditions on the events whose revenue counts',
  rows: 'the rows of an export chunk',
  run: 'the WITH clause of the compaction run under way: its last day, lookback and keep time (admin/compaction-run.sql)',
  series: 'the UNION ALL of chart series statements',
  session_bucket: 'the time bucket of a session start',
  session_filters: 'HAVING conditions on session attributes and event-filter matches',
  sequence_range:
    "the nodes of a session's path: all, from the first matching the start step, up to it, or from it to the next matching the end step (paths)",
  sequence_cut: 'the nodes of a path kept after repeats collapse: the first `steps`, or the last `steps` up to the start step (paths)',
  end_match: 'whether an event matches the end step, or 0 (paths, mode between)',
  settled_attributes: 'the session attributes a query reads, as columns of a combined session',
  views_with: "the WITH items the window's page views read, from the sessions wing (pages)",
  settled_pages: 'the stored page views of the settled days: page rows or their rollup (pages)',
  page_views: "the window's page views, stored or ordered from events, as `page_parts` (pages)",
  stored_table: "the table of the settled days' stored page views: page rows or their rollup (pages)",
  stored_time: "the time column of the stored page views a window bounds: a row's quarter hour or hour (pages)",
  first_views: 'the sessions a stored page view counts first in the window (pages)',
  settled_sessions: "the window's sessions of the settled days, read combined, with the columns and conditions asked for",
  regrouped_page_join: 'the events of regrouped sessions under page-only event filters',
  regrouped_sessions: "the window's sessions regrouped from partial rows",
  chosen_sessions: 'the partial rows of the sessions a list page shows, chosen before they are combined (sessions list)',
  newest_sessions: 'the keys and starts of the sessions a list page shows, chosen among the regrouped ones (sessions list)',
  listed_with: 'the WITH items the sessions of a list page read, from the sessions wing (sessions list)',
  listed_sessions: 'the sessions of a list page, each part cut to the page, from the sessions wing (sessions list)',
  rollup_rows: "the settled days' counts of breakdowns from the session rollup",
  rollup_counts: "a breakdown's counts summed over the session rollup and the regrouped sessions, with their FROM",
  kept_counts: "a breakdown's counts over the window's kept sessions, with their FROM",
  member_join: 'the ARRAY JOIN of each regrouped session under every breakdown asked together, or nothing',
  exit_items: 'the exit and viewed-page items of each session, with the join that gives its pages (exit pages)',
  rollup_hours: 'which rows of the session rollup a window reads: by the hour, or by the day over its whole days',
  day_dimensions: "the session rollup's dimensions kept by the UTC day, whose rows a window's whole days read (entry and exit pages)",
  event_range: 'the regrouped range an events scan is narrowed to',
  event_minutes: 'the events of the minutes a discovery window leaves over at its edges, in UNION ALL',
  kept_keys: "a compared question's restriction to the keys its main answer kept (queries/core/compare.ts), or nothing",
  settled_view_match: 'whether a settled page row matches the view filters (pages)',
  step_bits: "each step's bit of an event's mask, as windowFunnel's conditions (funnel)",
  step_mask: 'the steps an event matches, as bits (funnel)',
  start_match: 'whether an event matches the start step (retention, paths)',
  active_match: "whether an event counts as a visitor's activity: the request's filters (weekly retention)",
  table: 'a combined table a compaction keeps (an entry of queries/sessions/combined-tables.ts)',
  top_groups: "the join with a series' top groups",
  view_match: 'whether a page view matches the view filters',
  view_filters: 'conditions a counted page view matches (event-field filters but name)',
  view_sessions: 'the sessions whose page views a page row counts',
  views: "a session's counted page views",
  views_join: 'the join with counted views under event filters',
  window_sessions: 'the sessions of the window that pass the filters',
  table_dimensions: "a table's dimension columns, dimension_1 to dimension_3 ('' past those asked)",
  table_figures: "the figures of a table's rows that only some metrics need, 0 when none asks",
  session_events: "the join with each kept session's events, revenue and goal (table)",
  table_order: "a table's ORDER BY: a metric's sort key, then the dimensions, nulls last",
  goal: 'the condition an event matches to reach the goal (table)',
  people_after: 'which side of the keyset a page of profiles starts after: later or earlier, as the list is sorted (people)',
  people_order: 'the ORDER BY of a page of profiles: by creation time and id, ascending or descending (people)',
  people_conditions: "the conditions a profile list asks, on the profile's columns, events and sessions, each only when asked (people)",
  new_people: 'the staged profile or group versions an import writes (those the project does not hold yet)',
  listed_pages: "a `/pages` request's statement read to its last row (OpenPanel's page count)",
} as const satisfies Record<string, string>

const SCALAR_TYPE =
  /^(String|Identifier|UUID|Bool|U?Int(8|16|32|64|128|256)|Float(32|64)|Date|Date32|DateTime(\('[\w/+-]+'\))?|DateTime64\(\d(, ?'[\w/+-]+')?\))$/

/** Whether a placeholder type is one ClickHouse binds: a scalar, or Array/Nullable of a known type. */
export function isKnownType(type: string): boolean {
  const wrapped = /^(Array|Nullable)\((.+)\)$/.exec(type)
  return wrapped ? isKnownType(wrapped[2].trim()) : SCALAR_TYPE.test(type)
}

export interface Template {
  name: string
  file: string
  text: string
  placeholders: Map<string, string>
  markers: string[]
  /** What `-- @returns` declares (queries/core/returns.ts); undefined when the header is missing or broken. */
  returns?: Returns
}

function parseTemplate(file: string, text: string): Template {
  const name = /^-- @name (\S+)/m.exec(text)?.[1]
  if (!name) throw new Error(`SQL template ${file} has no "-- @name" header`)
  const placeholders = new Map<string, string>()
  for (const [, param, type] of text.matchAll(PLACEHOLDER)) placeholders.set(param, type.trim())
  const markers = [...text.matchAll(MARKER)].map((match) => match[1])
  return { name, file, text, placeholders, markers, returns: readReturns(text, markers).returns }
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

/** `file @marker` of every marker a compiler has filled in this process (the startup check reads it). */
const filled = new Set<string>()
export const filledMarkers = (): ReadonlySet<string> => filled

/** Fills `/* @marker *\/` slots with fragments; every marker of the template must be given. */
export function fillMarkers(template: Template, fragments: Record<string, string>): string {
  const unknown = Object.keys(fragments).filter((key) => !template.markers.includes(key))
  if (unknown.length) throw new Error(`Template ${template.name} has no marker(s) ${unknown.join(', ')}`)
  const text = template.text.replace(MARKER, (_, marker: string) => {
    if (!(marker in fragments)) throw new Error(`Template ${template.name}: marker @${marker} not filled`)
    return fragments[marker]
  })
  for (const marker of template.markers) filled.add(`${template.file} @${marker}`)
  return text
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

/** Every `.sql` file under a directory, as paths relative to it (`insights/live.sql`), sorted. */
export function listSqlFiles(dir: string = SQL_DIR): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.sql'))
    .map((file) => file.split(path.sep).join('/'))
    .sort()
}

const withoutComments = (text: string) => text.replace(/--[^\n]*/g, '')

/** What is wrong with one migration: its header names the file; values are never bound into DDL. */
function migrationProblems(file: string, text: string): string[] {
  const problems: string[] = []
  const expected = path.basename(file, '.sql')
  if (!new RegExp(`^-- @migration ${expected}$`, 'm').test(text)) problems.push(`needs the header "-- @migration ${expected}"`)
  if (/\{\w+:[^{}]+\}/.test(withoutComments(text).replace(/\{\{[^{}]*\}\}/g, '')))
    problems.push('binds a {name:Type} placeholder; migrations run without params')
  return problems
}

/** What is wrong with one query template (see `checkTemplates`). */
function templateProblems(text: string): string[] {
  const problems: string[] = []
  const names = [...text.matchAll(/^-- @name (\S+)$/gm)]
  if (names.length !== 1) problems.push(`needs exactly one "-- @name" header, has ${names.length}`)
  if (!/^-- @returns .+$/m.test(text)) problems.push('needs a "-- @returns" header')
  const markers = [...text.matchAll(MARKER)].map((match) => match[1])
  problems.push(...readReturns(text, markers).problems)
  const sql = withoutComments(text)
  const types = new Map<string, Set<string>>()
  for (const [braced] of sql.matchAll(/\{[^{}]*\}/g)) {
    const placeholder = /^\{(\w+):([^{}]+)\}$/.exec(braced)
    if (!placeholder) {
      problems.push(`${braced} is not a {name:Type} placeholder`)
      continue
    }
    const [, name, type] = placeholder
    if (!isKnownType(type.trim())) problems.push(`${braced} has an unknown type`)
    types.set(name, (types.get(name) ?? new Set()).add(type.trim()))
  }
  for (const [name, used] of types) if (used.size > 1) problems.push(`{${name}} is bound with several types: ${[...used].join(', ')}`)
  for (const [comment] of sql.matchAll(/\/\*\s*@[^]*?\*\//g)) {
    const marker = /^\/\* @(\w+) \*\/$/.exec(comment)?.[1]
    if (!marker) problems.push(`${comment} is not a marker of the form /* @name */`)
    else if (!Object.hasOwn(MARKERS, marker)) problems.push(`unknown marker @${marker}; known: ${Object.keys(MARKERS).join(', ')}`)
  }
  if (/\$\{/.test(sql)) problems.push('contains JavaScript interpolation "${"')
  return problems
}

/** Every problem of every `.sql` file under a directory, as `file: problem` lines. */
export function findTemplateProblems(dir: string = SQL_DIR): string[] {
  const names = new Map<string, string>()
  return listSqlFiles(dir).flatMap((file) => {
    const text = fs.readFileSync(path.join(dir, file), 'utf8')
    if (file.startsWith('migrations/')) return migrationProblems(file, text).map((problem) => `${file}: ${problem}`)
    const problems = templateProblems(text)
    const name = /^-- @name (\S+)$/m.exec(text)?.[1]
    if (name && names.has(name)) problems.push(`@name ${name} is also the name of ${names.get(name)}`)
    if (name) names.set(name, file)
    return problems.map((problem) => `${file}: ${problem}`)
  })
}

/**
 * Startup check of the SQL files: every template has one `@name` (unique) and a `@returns` that lists its
 * columns with known types (or says it returns nothing, or is a fragment of other statements), every
 * `{...}` is a placeholder with a known type and one type per name, every marker is a known slot, and
 * nothing is interpolated by JavaScript; a migration names its file and binds nothing. Throws with
 * every problem, each naming its file.
 */
export function checkTemplates(dir: string = SQL_DIR): void {
  const problems = findTemplateProblems(dir)
  if (problems.length) throw new Error(`SQL templates in ${dir} are broken:\n  ${problems.join('\n  ')}`)
}
