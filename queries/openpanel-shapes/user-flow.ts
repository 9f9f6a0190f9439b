// `GET /insights/:projectId/user_flow` in OpenPanel's shape (`getUserFlowCore`, packages/db/src/services/
// sankey.service.ts at ed7bdddb): a sankey of `nodes` and `links` with OpenPanel's parameters, computed
// exactly by Quarry's paths over event names (queries/behaviour/paths.ts) from each session's first
// `startEvent`. Only OpenPanel's default mode, `after`, is answered; `before`, `between`, `include` and
// `exclude` are a 400 saying so (docs/openpanel.md).
import { QueryError, invalid, type Issue } from '../core/errors'
import type { Resource, Scope } from '../core/pipeline'
import { round2 } from '../core/rounding'
import { checkedParams, compileSchema } from '../core/validate'
import { dateProperties } from '../behaviour/behaviour-params'
import { paths, pathsSchema, type PathsQuery, type PlannedPaths } from '../behaviour/paths'
import type { Rows } from '../core/rows.generated'

const MODES = ['after', 'before', 'between'] as const

export const userFlowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['startEvent'],
  properties: {
    ...dateProperties,
    filters: pathsSchema.properties.filters,
    startEvent: { type: 'string', minLength: 1, maxLength: 200, description: 'The event name each flow begins at' },
    mode: { type: 'string', enum: MODES, default: 'after', description: 'after: the events after startEvent (the only mode answered)' },
    steps: pathsSchema.properties.steps,
    limit: pathsSchema.properties.limit,
    endEvent: { type: 'string', description: 'OpenPanel takes it with mode=between, which Quarry does not answer' },
    include: { type: 'string', description: 'OpenPanel keeps only these event names; Quarry does not answer it' },
    exclude: { type: 'string', description: 'OpenPanel drops these event names; Quarry does not answer it' },
  },
}
const validate = compileSchema(userFlowSchema)
const UNANSWERED = ['endEvent', 'include', 'exclude']

/** The request as Quarry's paths question over event names, or a 400 of every problem. */
function parseUserFlow(raw: Record<string, unknown>, scope: Scope): UserFlowQuery {
  const { typed, issues } = checkedParams<{ mode: string; startEvent?: string }>(validate, raw)
  const own: Issue[] = []
  if (typed.mode !== 'after' && MODES.includes(typed.mode as (typeof MODES)[number]))
    own.push({
      path: ['mode'],
      message: `"mode" ${typed.mode} is not answered: Quarry's user flow follows the events after startEvent (mode=after)`,
    })
  // OpenPanel's own rule, listed with the rest so that a request fixed for it meets only the refusal above.
  if (typed.mode === 'between' && raw.endEvent === undefined)
    own.push({ path: ['endEvent'], message: '"endEvent" is required with mode=between' })
  for (const name of UNANSWERED)
    if (raw[name] !== undefined)
      own.push({ path: [name], message: `"${name}" is not answered: Quarry's user flow follows every event after startEvent` })
  const { startEvent, mode: _mode, endEvent: _end, include: _include, exclude: _exclude, ...rest } = raw
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
  return { ...query, startEvent: String(startEvent) }
}

type UserFlowQuery = PathsQuery & { startEvent: string }

interface PathsBody {
  sessions: number
  steps: { step: number; nodes: { label: string; sessions: number; exits: number }[] }[]
  links: { step: number; source: string; target: string; sessions: number }[]
}

const nodeId = (label: string, step: number) => `${label}::step${step}`

/** Quarry's paths answer as OpenPanel's sankey: a node per label and step, a link per pair of consecutive steps. */
export function sankeyOf(body: PathsBody, startEvent: string) {
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
  return { mode: 'after', startEvent, sessions: body.sessions, node_count: nodes.length, link_count: links.length, nodes, links }
}

type PlannedUserFlow = PlannedPaths & { startEvent: string }

export const userFlow: Resource<UserFlowQuery, PlannedUserFlow, Rows['behaviour/paths.sql']> = {
  name: 'user_flow',
  schema: userFlowSchema,
  parse: parseUserFlow,
  plan: (query) => ({ ...paths.plan(query), startEvent: query.startEvent }),
  compile: (query) => paths.compile(query),
  shape(rows, query) {
    const answer = paths.shape(rows, query)
    return { ...answer, body: sankeyOf(answer.body as PathsBody, query.startEvent) }
  },
}
