// `GET /insights/:projectId/funnel`: how many sessions (or visitors) reach each step, in order, within
// `windowHours` of entering inside the window; optionally per breakdown value taken at the entry.
import { COMPARE_PROPERTY, type CompareMode } from '../core/compare'
import { funnelCompare } from './funnel-compare'
import { compileTemplate, mergeParams, sqlOnly, type Fragment, type Params } from '../core/compiled'
import { HOUR_MS } from '../core/dates'
import { assertNever, type Issue } from '../core/errors'
import { planSteps, type Resource, type Scope } from '../core/pipeline'
import { toClickHouseTime } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { percent } from '../core/rounding'
import { windowParams } from '../core/window-params'
import { fieldSource, type FieldSource } from '../charts/chart-params'
import { capFoldCost } from './funnel-cost'
import { baseOrThrow, behaviourValidator, behaviourSchema, parseBehaviourBase, type BehaviourBase } from './behaviour-params'
import { regexIssues, type RegexPattern } from '../core/regex-budget'
import { compileSteps, eventColumnIssues, parseStepText, parseStepValue, type CompiledSteps, type Step } from './steps'

export const MIN_STEPS = 2
export const MAX_STEPS = 10
export const MAX_WINDOW_HOURS = 720

/**
 * Who moves through a funnel: the closed set of groupings, each read as its id's 128-bit key (migration
 * 012), which tells the same ids apart as the id does and is grouped without hashing a string per event.
 */
export const FUNNEL_GROUPS = { session_id: 'session_key', profile_id: 'profile_key' } as const
export type FunnelGroup = keyof typeof FUNNEL_GROUPS

export const funnelSchema = behaviourSchema(
  {
    steps: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_STEPS,
      items: { type: 'string' },
      description: `${MIN_STEPS}-${MAX_STEPS} steps: repeated event names, or one JSON array of steps ({ "name", "filters" } or names); each repeated value may also be a JSON step`,
    },
    windowHours: { type: 'integer', minimum: 1, maximum: MAX_WINDOW_HOURS, default: 24 },
    groupBy: { type: 'string', enum: Object.keys(FUNNEL_GROUPS), default: 'session_id' },
    breakdown: { type: 'string', description: 'One event field, session attribute (as the event carries it) or properties.<key>' },
    breakdownLimit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
    compare: COMPARE_PROPERTY,
  },
  ['steps'],
)
const validateFunnel = behaviourValidator(funnelSchema)

/**
 * How a funnel is computed when no event can match two steps: `entries` without a breakdown (the groups
 * that enter counted apart, windowFunnel only over the groups with an event of a later step), `window`
 * (windowFunnel over every group, which gives each its entry value) with one. Otherwise `fold`, the
 * exact fold over each group's moments.
 */
export type FunnelEngine = 'entries' | 'window' | 'fold'

export interface FunnelQuery extends BehaviourBase {
  steps: Step[]
  windowHours: number
  groupBy: FunnelGroup
  breakdown?: { name: string; source: FieldSource }
  breakdownLimit: number
  /** Compared with the window before (funnel-compare.ts). */
  compare?: CompareMode
}

/** `steps`: one JSON array, or one value per step (a JSON step or a plain name); their regex patterns into `patterns`. */
function parseSteps(values: string[], issues: Issue[], patterns: RegexPattern[]): Step[] {
  let raw: { value: unknown; fromText: boolean }[] = values.map((value) => ({ value, fromText: true }))
  if (values.length === 1 && values[0].trimStart().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(values[0])
      if (!Array.isArray(parsed)) throw new Error('not an array')
      raw = parsed.map((value) => ({ value, fromText: false }))
    } catch (error) {
      issues.push({ path: ['steps'], message: `"steps" is not a valid JSON array: ${(error as Error).message}` })
      return []
    }
  }
  if (raw.length < MIN_STEPS || raw.length > MAX_STEPS)
    issues.push({ path: ['steps'], message: `a funnel has ${MIN_STEPS} to ${MAX_STEPS} steps, got ${raw.length}` })
  const steps = raw.map(({ value, fromText }, index) =>
    fromText
      ? parseStepText(value as string, ['steps', index], issues, patterns)
      : parseStepValue(value, ['steps', index], issues, patterns),
  )
  return steps.filter((step): step is Step => step !== undefined)
}

function parseFunnel(raw: Record<string, unknown>, scope: Scope): FunnelQuery {
  const issues: Issue[] = []
  const { base, params, patterns } = parseBehaviourBase(raw, scope, validateFunnel, issues)
  const typed = params as {
    steps?: string[]
    windowHours: number
    groupBy: FunnelGroup
    breakdown?: string
    breakdownLimit: number
    compare?: CompareMode
  }
  const stepPatterns: RegexPattern[] = []
  const steps = Array.isArray(typed.steps) ? parseSteps(typed.steps, issues, stepPatterns) : []
  // The request's filters are ANDed into every step: each step's condition runs their patterns.
  issues.push(
    ...regexIssues([
      { patterns, runs: steps.length },
      { patterns: stepPatterns, runs: 1 },
    ]),
  )
  issues.push(...eventColumnIssues(base?.filters ?? [], ['filters']))
  let breakdown: FunnelQuery['breakdown']
  if (typeof typed.breakdown === 'string') {
    const source = fieldSource(typed.breakdown)
    if (source) breakdown = { name: typed.breakdown, source }
    else
      issues.push({
        path: ['breakdown'],
        message: `unknown breakdown "${typed.breakdown}": an event field, a session attribute other than the entry page, or properties.<key>`,
      })
  }
  const checked = baseOrThrow(base, issues)
  return {
    ...checked,
    steps,
    windowHours: typed.windowHours,
    groupBy: typed.groupBy,
    breakdown,
    breakdownLimit: breakdown ? typed.breakdownLimit : 1,
    ...(typed.compare ? { compare: typed.compare } : {}),
  }
}

/** A funnel with its engine picked. */
export interface PickedFunnel extends FunnelQuery {
  engine: FunnelEngine
}

/** A funnel after its plan: its steps' conditions compiled too. */
export interface PlannedFunnel extends PickedFunnel {
  conditions: CompiledSteps
}

/**
 * Plan step: windowFunnel answers exactly when the steps are disjoint, each naming its own event (none `*`),
 * whatever their filters; it lets one event take two steps, which only overlapping steps allow. It is
 * native code over the events as they come; the fold builds and folds arrays per group, many times slower.
 * Without a breakdown, `entries` keeps a windowFunnel state only for the groups with an event of a later
 * step: over a long window most groups only enter, and a state for each of them is most of the cost.
 */
export function pickFunnelEngine(query: FunnelQuery): PickedFunnel {
  const names = query.steps.map((step) => step.name)
  const disjoint = !names.includes('*') && new Set(names).size === names.length
  const engine: FunnelEngine = !disjoint ? 'fold' : query.breakdown ? 'window' : 'entries'
  return { ...query, engine }
}

/**
 * The template of each engine; windowFunnel's take each step's bit of the mask as a condition and the
 * names their events are read by. The ones that can have a breakdown read its value per event and keep the
 * top values.
 */
function engineTemplate(query: PlannedFunnel): { file: string; fragments: Record<string, Fragment>; params: Params } {
  const stepBits = sqlOnly(query.steps.map((_, index) => `bitTest(mask, ${index})`).join(', '))
  const stepNames = query.steps.map((step) => step.name)
  switch (query.engine) {
    case 'entries':
      return { file: 'behaviour/funnel-entries.sql', fragments: { step_bits: stepBits }, params: { stepNames } }
    case 'window':
      return {
        file: 'behaviour/funnel-window.sql',
        fragments: {
          step_bits: stepBits,
          breakdown_value: breakdownValue(query),
        },
        params: { breakdownLimit: query.breakdownLimit, stepNames },
      }
    case 'fold':
      return {
        file: 'behaviour/funnel.sql',
        fragments: { breakdown_value: breakdownValue(query) },
        params: { breakdownLimit: query.breakdownLimit },
      }
    default:
      return assertNever(query.engine)
  }
}

/** The breakdown's value of an event row, its property key bound as `b_key`; '' without a breakdown. */
function breakdownValue(query: FunnelQuery): Fragment {
  const source = query.breakdown?.source
  if (!source) return sqlOnly("''")
  switch (source.kind) {
    case 'column':
      return sqlOnly(`toString(${source.column})`)
    case 'property':
      return { sql: 'properties[{b_key:String}]', params: { b_key: source.key } }
    default:
      return assertNever(source)
  }
}

/**
 * Plan step, after the cost cap (a funnel it refuses is refused as before): each step's condition compiled
 * once, as `s<index>_...`, the request's filters ANDed into each.
 */
function decideFunnelSteps(query: PickedFunnel): PlannedFunnel {
  return {
    ...query,
    conditions: compileSteps(
      query.steps.map((step, index) => ({ prefix: `s${index}`, step })),
      query.filters,
    ),
  }
}

/** Each event's steps as bits: bit i when it matches step i, bit 0 only inside the window. */
function stepMask({ steps, filterParams }: CompiledSteps): Fragment {
  const bits = steps.map((step, index) =>
    index === 0 ? `if(${step.sql} AND created_at < {end:DateTime64(3, 'UTC')}, 1, 0)` : `if(${step.sql}, ${2 ** index}, 0)`,
  )
  return {
    sql: `toUInt16(${bits.join(' + ')})`,
    params: mergeParams([...steps.map((step) => step.params), filterParams], 'the funnel steps'),
  }
}

/** A funnel's row: every engine's template returns these columns (behaviour/funnel*.sql). */
type FunnelRow = Rows['behaviour/funnel.sql']

/** A funnel's steps from the groups reaching each (users_1 first). */
function shapeSteps(query: FunnelQuery, reached: readonly number[]) {
  const users = query.steps.map((_, index) => Number(reached[index] ?? 0))
  const dropoffs = users.map((count, index) =>
    index === users.length - 1 || count === 0 ? null : percent(count - users[index + 1], count),
  )
  const highest = dropoffs.reduce<number | null>((best, value) => (value !== null && (best === null || value > best) ? value : best), null)
  const highestIndex = highest === null ? -1 : dropoffs.indexOf(highest)
  const steps = query.steps.map((step, index) => ({
    step: index + 1,
    eventName: step.name,
    users: users[index],
    conversionRateFromStart: percent(users[index], users[0]),
    dropoffPercent: dropoffs[index],
    isHighestDropoff: index === highestIndex,
  }))
  return {
    steps,
    totalUsers: users[0],
    completedUsers: users[users.length - 1],
    overallConversionRate: percent(users[users.length - 1], users[0]),
  }
}

export const funnel: Resource<FunnelQuery, PlannedFunnel, FunnelRow> = {
  name: 'funnel',
  schema: funnelSchema,
  parse: parseFunnel,
  plan: planSteps(pickFunnelEngine, capFoldCost, decideFunnelSteps),
  compile(query) {
    const windowMs = query.windowHours * HOUR_MS
    const engine = engineTemplate(query)
    return compileTemplate(
      engine.file,
      {
        ...windowParams(query.projectId, query.window),
        readTo: toClickHouseTime(new Date(query.window.end.getTime() + windowMs)),
        windowMs,
        stepCount: query.steps.length,
        ...engine.params,
      },
      { group_key: sqlOnly(FUNNEL_GROUPS[query.groupBy]), ...engine.fragments, step_mask: stepMask(query.conditions) },
    )
  },
  shape(rows, query) {
    const total = rows[0]?.total ?? []
    const body = shapeSteps(query, total)
    if (!query.breakdown) return { body }
    const breakdowns = rows.map((row) => ({ value: row.value === '' ? null : row.value, ...shapeSteps(query, row.reached) }))
    return { body: { ...body, breakdowns } }
  },
  compare: funnelCompare(),
}
