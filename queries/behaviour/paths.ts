// `GET /insights/:projectId/paths` (OpenPanel's user flow, over pages or events): the sequences of the
// window's sessions as nodes per step, with exits, and links between consecutive steps.
import { compileTemplate, sqlOnly, type Fragment, type Params } from '../core/compiled'
import { assertNever, invalid, type Issue } from '../core/errors'
import { sortFilters } from '../core/filters'
import { TREE_FILTERS_PROPERTY, compileTree } from '../core/filter-tree'
import { planSteps, type Resource, type Scope } from '../core/pipeline'
import { toClickHouseTime } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import type { SessionAttribute } from '../core/registry'
import { firstEventFields } from '../sessions/session-fields'
import { windowParams } from '../core/window-params'
import { widenForSessions, type ReadRange } from '../insights/insight-params'
import { baseOrThrow, behaviourValidator, behaviourSchema, parseBehaviourBase, type BehaviourBase } from './behaviour-params'
import { regexIssues, type RegexPattern } from '../core/regex-budget'
import { compileSteps, parseStepText, type Step } from './steps'

export const NODES = ['page', 'event'] as const
export type NodeKind = (typeof NODES)[number]
export const MAX_PATH_STEPS = 10

export const pathsSchema = behaviourSchema({
  filters: TREE_FILTERS_PROPERTY,
  node: { type: 'string', enum: NODES, default: 'page', description: "page: the path of each page view; event: each event's name" },
  start: { type: 'string', description: 'Optional step (a JSON step or an event name) a sequence begins at' },
  steps: { type: 'integer', minimum: 2, maximum: MAX_PATH_STEPS, default: 5 },
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'Nodes and links kept per step' },
})
const validatePaths = behaviourValidator(pathsSchema)

export interface PathsQuery extends BehaviourBase {
  node: NodeKind
  start?: Step
  steps: number
  limit: number
  lookbackMs: number
  /** OpenPanel's user flow cut (queries/openpanel-shapes/user-flow.ts); without it, mode after. */
  flow?: Flow
}

export const FLOW_MODES = ['after', 'before', 'between'] as const
export type FlowMode = (typeof FLOW_MODES)[number]

/**
 * How a sequence is cut around the start step: from it (after), up to it (before), or from it to the
 * first node after it matching `end` (between); `include` keeps only the events of those names (and the
 * start's and end's), `exclude` drops the events of those names, both before the sequence is cut.
 */
export interface Flow {
  mode: FlowMode
  end?: Step
  include?: string[]
  exclude?: string[]
}

/**
 * The sessions a paths question keeps, compiled once: conditions over a grouped session, ANDed (SQL only),
 * the values they bind, and the session attributes they read (as the first event's, `s_<column>`).
 */
export interface SessionConditions {
  conditions: string[]
  params: Params
  attributes: SessionAttribute[]
}

/** A paths question after its plan: its read range, its start step's condition (`start_...`) and its sessions' conditions. */
export interface PlannedPaths extends PathsQuery, ReadRange {
  startCondition?: Fragment
  endCondition?: Fragment
  sessions: SessionConditions
}

function parsePaths(raw: Record<string, unknown>, scope: Scope): PathsQuery {
  const issues: Issue[] = []
  const { base, params, patterns } = parseBehaviourBase(raw, scope, validatePaths, issues, { trees: true })
  const typed = params as { node: NodeKind; start?: string; steps: number; limit: number }
  const startPatterns: RegexPattern[] = []
  const start = typeof typed.start === 'string' ? parseStepText(typed.start, ['start'], issues, startPatterns) : undefined
  issues.push(
    ...regexIssues([
      { patterns, runs: 1 },
      { patterns: startPatterns, runs: 1 },
    ]),
  )
  const checked = baseOrThrow(base, issues)
  if (typeof typed.start === 'string' && !start) throw invalid(issues)
  return { ...checked, node: typed.node, start, steps: typed.steps, limit: typed.limit, lookbackMs: scope.sessionLookbackMs }
}

const EVERY_EVENT = '1'

/** Which events are nodes, and their labels. */
function nodeOf(kind: NodeKind): { event: string; label: string } {
  switch (kind) {
    case 'page':
      return { event: "name = 'screen_view'", label: 'path' }
    case 'event':
      return { event: EVERY_EVENT, label: 'name' }
    default:
      return assertNever(kind)
  }
}

/**
 * The conditions a session passes: its attributes pass, and one of its events matches every event-field
 * filter; or it passes the filter tree, whose performed leaves count the session's events.
 */
function sessionConditions(query: PathsQuery): SessionConditions {
  if (query.tree) {
    const { condition, sessionAttributes } = compileTree(query.tree, 'grouped')
    return { conditions: [condition.sql], params: condition.params, attributes: sessionAttributes }
  }
  const sorted = sortFilters(query.filters)
  const anEventMatches = sorted.eventSelection === null ? null : `countIf(${sorted.eventSelection}) > 0`
  const conditions = [sorted.sessionRestriction, anEventMatches].filter((part): part is string => part !== null)
  return { conditions, params: sorted.params, attributes: sorted.sessionAttributes }
}

/** Plan step: the start step's condition and the conditions the sessions pass, each compiled once. */
function decidePathsConditions(query: PathsQuery & ReadRange): PlannedPaths {
  const startCondition = query.start ? compileSteps([{ prefix: 'start', step: query.start }], []).steps[0] : undefined
  const endCondition = query.flow?.end ? compileSteps([{ prefix: 'end', step: query.flow.end }], []).steps[0] : undefined
  return {
    ...query,
    ...(startCondition ? { startCondition } : {}),
    ...(endCondition ? { endCondition } : {}),
    sessions: sessionConditions(query),
  }
}

export const paths: Resource<PathsQuery, PlannedPaths, Rows['behaviour/paths.sql']> = {
  name: 'paths',
  schema: pathsSchema,
  parse: parsePaths,
  plan: planSteps(widenForSessions, decidePathsConditions),
  compile(query) {
    const node = nodeOf(query.node)
    const start = query.startCondition
    const end = query.endCondition
    return compileTemplate(
      'behaviour/paths.sql',
      {
        ...windowParams(query.projectId, query.window),
        readFrom: toClickHouseTime(query.readFrom),
        readTo: toClickHouseTime(query.readTo),
        steps: query.steps,
        limit: query.limit,
      },
      {
        node_event: nodeEvent(node.event, query),
        node_label: sqlOnly(node.label),
        start_match: start ? { sql: `toUInt8(${start.sql})`, params: start.params } : sqlOnly('toUInt8(0)'),
        end_match: end ? { sql: `toUInt8(${end.sql})`, params: end.params } : sqlOnly('toUInt8(0)'),
        ...sequenceCut(start ? (query.flow?.mode ?? 'after') : undefined),
        attributes: sqlOnly(firstEventFields(query.sessions.attributes, undefined, '        ')),
        session_filters: {
          sql: query.sessions.conditions.map((condition) => `\n        AND ${condition}`).join(''),
          params: query.sessions.params,
        },
      },
    )
  },
  shape(rows, query) {
    const steps = Array.from({ length: query.steps }, (_, index) => ({
      step: index + 1,
      nodes: rows
        .filter((row) => row.kind === 'node' && Number(row.step) === index + 1)
        .map((row) => ({ label: row.source, sessions: Number(row.sessions), exits: Number(row.exits) })),
    })).filter((step) => step.nodes.length > 0)
    const links = rows
      .filter((row) => row.kind === 'link')
      .map((row) => ({ step: Number(row.step), source: row.source, target: row.target, sessions: Number(row.sessions) }))
    const sessions = Number(rows[0]?.total ?? 0)
    const warnings = sessions === 0 && query.start ? [startWarning(query.start, query.node)] : []
    return { body: { sessions, steps, links, ...(warnings.length ? { meta: { warnings } } : {}) } }
  },
}

const START_INDEX = 'arrayFirstIndex(node -> bitAnd(node, 1) = 1, sorted)'
const END_INDEX = 'arrayFirstIndex((node, i) -> i > start_index AND bitAnd(node, 2) = 2, sorted, arrayEnumerate(sorted))'

/** The nodes a sequence keeps (`arraySlice` of the ordered labels) and, once repeats collapse, its steps. */
function sequenceCut(mode: FlowMode | undefined): { sequence_range: Fragment; sequence_cut: Fragment } {
  const first = sqlOnly('1, {steps:UInt8}')
  switch (mode) {
    case undefined:
      return { sequence_range: sqlOnly('1'), sequence_cut: first }
    case 'after':
      return { sequence_range: sqlOnly(START_INDEX), sequence_cut: first }
    case 'before':
      return {
        sequence_range: sqlOnly(`1, ${START_INDEX}`),
        sequence_cut: sqlOnly('greatest(1, toInt64(length(collapsed)) - {steps:UInt8} + 1)'),
      }
    case 'between':
      return {
        sequence_range: sqlOnly(`${START_INDEX} AS start_index, if((${END_INDEX} AS end_index) = 0, 0, end_index - start_index + 1)`),
        sequence_cut: first,
      }
    default:
      return assertNever(mode)
  }
}

/** Which events are nodes, narrowed by the flow's `include` (with the start's and end's names) and `exclude`. */
function nodeEvent(event: string, query: PathsQuery): Fragment {
  const include = query.flow?.include
  const exclude = query.flow?.exclude
  const kept = include && [...include, ...[query.start?.name, query.flow?.end?.name].filter((name) => name !== undefined)]
  const narrowed = [
    ...(kept ? ['name IN {flow_include:Array(String)}'] : []),
    ...(exclude ? ['name NOT IN {flow_exclude:Array(String)}'] : []),
  ]
  return {
    sql: narrowed.length ? [...(event === EVERY_EVENT ? [] : [event]), ...narrowed].join(' AND ') : event,
    params: { ...(kept ? { flow_include: [...new Set(kept)] } : {}), ...(exclude ? { flow_exclude: exclude } : {}) },
  }
}

/** Why no sequence began at `start`: a page view is the only node of `node=page`, so an event there never starts one. */
function startWarning(start: Step, node: NodeKind): string {
  if (node === 'page' && start.name !== 'screen_view' && start.name !== '*') {
    const page = start.name.startsWith('/') ? start.name : '/pricing'
    const step = JSON.stringify({ name: 'screen_view', filters: [{ name: 'path', operator: 'is', value: [page] }] })
    return `"start" names the event "${start.name}", but with node=page a sequence holds page views only; to begin at a page, send start=${step}`
  }
  return '"start" matches no event of the window\'s sessions, so no sequence begins'
}
