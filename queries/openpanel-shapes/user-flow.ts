// `GET /insights/:projectId/user_flow` in OpenPanel's shape (`getUserFlowCore`, packages/db/src/services/
// sankey.service.ts at ed7bdddb): a sankey of `nodes` and `links` with OpenPanel's parameters, computed
// exactly by Quarry's paths over event names (queries/behaviour/paths.ts) around each session's first
// `startEvent`: the events after it (mode `after`), up to it (`before`), or from it to the first `endEvent`
// after it (`between`), over the events `include` keeps and `exclude` does not drop (docs/definitions.md).
import { QueryError, invalid, type Issue } from '../core/errors'
import type { Resource, Scope } from '../core/pipeline'
import { round2 } from '../core/rounding'
import { checkedParams, compileSchema } from '../core/validate'
import { dateProperties } from '../behaviour/behaviour-params'
import { FLOW_MODES, paths, pathsSchema, type FlowMode, type PathsQuery, type PlannedPaths } from '../behaviour/paths'
import type { Rows } from '../core/rows.generated'

const eventName = { type: 'string', minLength: 1, maxLength: 200 }
const names = (what: string) => ({
  anyOf: [eventName, { type: 'array', items: eventName, minItems: 1, maxItems: 100 }],
  description: `Event names the flow ${what}: one name, or the parameter repeated`,
})

export const userFlowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['startEvent'],
  properties: {
    ...dateProperties,
    filters: pathsSchema.properties.filters,
    startEvent: { type: 'string', minLength: 1, maxLength: 200, description: 'The event name each flow begins at' },
    mode: {
      type: 'string',
      enum: FLOW_MODES,
      default: 'after',
      description: 'after: the events from startEvent on; before: the events up to startEvent; between: from startEvent to endEvent',
    },
    steps: pathsSchema.properties.steps,
    limit: pathsSchema.properties.limit,
    endEvent: { ...eventName, description: 'The event name a flow ends at (mode=between, and only then)' },
    include: names('keeps (with startEvent and endEvent)'),
    exclude: names('drops (never startEvent or endEvent)'),
  },
}
const validate = compileSchema(userFlowSchema)

const listOf = (value: unknown): string[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.map(String) : [String(value)]

/** The request as Quarry's paths question over event names, or a 400 of every problem. */
function parseUserFlow(raw: Record<string, unknown>, scope: Scope): UserFlowQuery {
  const { typed, issues } = checkedParams<{ mode: FlowMode; startEvent?: string; endEvent?: string }>(validate, raw)
  const own: Issue[] = []
  if (typed.mode === 'between' && raw.endEvent === undefined)
    own.push({ path: ['endEvent'], message: '"endEvent" is required with mode=between' })
  if ((typed.mode === 'after' || typed.mode === 'before') && raw.endEvent !== undefined)
    own.push({ path: ['endEvent'], message: `"endEvent" is taken with mode=between only, not with mode=${typed.mode}` })
  const include = listOf(raw.include)
  const exclude = listOf(raw.exclude)
  for (const name of ['startEvent', 'endEvent'] as const)
    if (typeof raw[name] === 'string' && exclude?.includes(raw[name]))
      own.push({ path: ['exclude'], message: `"exclude" names ${name} ${JSON.stringify(raw[name])}, so no flow could be followed` })
  const { startEvent, mode: _mode, endEvent, include: _include, exclude: _exclude, ...rest } = raw
  let query: PathsQuery | undefined
  try {
    query = paths.parse({ ...rest, node: 'event', ...(typeof startEvent === 'string' ? { start: startEvent } : {}) }, scope)
  } catch (error) {
    if (!(error instanceof QueryError) || error.code !== 'invalid_request') throw error
    own.push(...error.issues)
  }
  // The parameters both schemas check (the window, steps, limit) are reported once.
  const reported = new Set(issues.map((issue) => JSON.stringify(issue)))
  const all = [...issues, ...own.filter((issue) => !reported.has(JSON.stringify(issue)))]
  if (all.length || !query) throw invalid(all)
  const end = typeof endEvent === 'string' ? { name: endEvent, filters: [] } : undefined
  const flow = { mode: typed.mode, ...(end ? { end } : {}), ...(include ? { include } : {}), ...(exclude ? { exclude } : {}) }
  return { ...query, flow, startEvent: String(startEvent), ...(end ? { endEvent: end.name } : {}) }
}

type UserFlowQuery = PathsQuery & { startEvent: string; endEvent?: string }

interface PathsBody {
  sessions: number
  steps: { step: number; nodes: { label: string; sessions: number; exits: number }[] }[]
  links: { step: number; source: string; target: string; sessions: number }[]
}

const nodeId = (label: string, step: number) => `${label}::step${step}`

/** Quarry's paths answer as OpenPanel's sankey: a node per label and step, a link per pair of consecutive steps. */
export function sankeyOf(body: PathsBody, query: Pick<UserFlowQuery, 'flow' | 'startEvent' | 'endEvent'>) {
  const nodes = body.steps.flatMap(({ step, nodes: stepNodes }) =>
    stepNodes.map((node) => ({
      id: nodeId(node.label, step),
      label: node.label,
      step,
      value: node.sessions,
      percentage: body.sessions ? round2((100 * node.sessions) / body.sessions) : 0,
      exits: node.exits,
    })),
  )
  const links = body.links.map((link) => ({
    source: nodeId(link.source, link.step),
    target: nodeId(link.target, link.step + 1),
    value: link.sessions,
  }))
  const { startEvent, endEvent } = query
  const mode = query.flow?.mode ?? 'after'
  return {
    mode,
    startEvent,
    ...(endEvent !== undefined ? { endEvent } : {}),
    sessions: body.sessions,
    node_count: nodes.length,
    link_count: links.length,
    nodes,
    links,
  }
}

type PlannedUserFlow = PlannedPaths & { startEvent: string; endEvent?: string }

export const userFlow: Resource<UserFlowQuery, PlannedUserFlow, Rows['behaviour/paths.sql']> = {
  name: 'user_flow',
  schema: userFlowSchema,
  parse: parseUserFlow,
  plan: (query) => ({ ...paths.plan(query), startEvent: query.startEvent, ...(query.endEvent ? { endEvent: query.endEvent } : {}) }),
  compile: (query) => paths.compile(query),
  shape(rows, query) {
    const answer = paths.shape(rows, query)
    return { ...answer, body: sankeyOf(answer.body as PathsBody, query) }
  },
}
