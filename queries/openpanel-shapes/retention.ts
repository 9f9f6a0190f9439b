// Retention in OpenPanel's shapes (packages/db/src/services/retention.service.ts at ed7bdddb). `/retention`
// answers OpenPanel's weekly series: per week, the visitors active in it and those of them active again the
// week after (Quarry's cohort table with `detail=true`). `/retention/cohort` answers OpenPanel's cohort rows,
// a weighted average first, from Quarry's cohort table with OpenPanel's defaults (weeks, `on_or_after`, 12
// periods); `detail=true` answers that table as it is.
import { DateTime } from 'luxon'
import { briefUnlessDetailed, eitherByDetail } from '../core/detail'
import { compileTemplate, mergeParams } from '../core/compiled'
import { formatInstant } from '../core/dates'
import type { Issue } from '../core/errors'
import { planSteps, toClickHouseTime, type Resource, type Scope } from '../core/pipeline'
import { regexIssues } from '../core/regex-budget'
import { round2, percent } from '../core/rounding'
import type { Rows } from '../core/rows.generated'
import { windowParams } from '../core/window-params'
import { baseOrThrow, behaviourSchema, behaviourValidator, parseBehaviourBase, type BehaviourBase } from '../behaviour/behaviour-params'
import { retention, retentionSchema } from '../behaviour/retention'
import { compileSteps, eventColumnIssues, type CompiledSteps } from '../behaviour/steps'

/** OpenPanel reads every week; Quarry a window, by default the last three months (about OpenPanel's 12 weeks of cohorts). */
const SERIES_RANGE = '3m'

export const weeklySeriesSchema = behaviourSchema({
  range: { ...retentionSchema.properties.range, default: SERIES_RANGE, description: 'The window (default 3m; 7d with detail=true)' },
})
const validateSeries = behaviourValidator(weeklySeriesSchema)

export type WeeklySeriesQuery = BehaviourBase

interface PlannedSeries extends WeeklySeriesQuery {
  /** Whether an event counts: the request's filters (any event without them). */
  active: CompiledSteps
}

function parseSeries(raw: Record<string, unknown>, scope: Scope): WeeklySeriesQuery {
  const issues: Issue[] = []
  const { base, patterns } = parseBehaviourBase(raw, scope, validateSeries, issues)
  issues.push(...regexIssues([{ patterns, runs: 1 }]))
  issues.push(...eventColumnIssues(base?.filters ?? [], ['filters']))
  return baseOrThrow(base, issues)
}

/** Plan step: the condition an event must meet, the request's filters over its columns. */
const decideActive = (query: WeeklySeriesQuery): PlannedSeries => ({
  ...query,
  active: compileSteps([{ prefix: 'active', step: { name: '*', filters: [] } }], query.filters),
})

/** The end of the week after the one holding the window's last instant: the returns of its last week end there. */
function seriesReadTo(query: WeeklySeriesQuery): Date {
  return DateTime.fromJSDate(new Date(query.window.end.getTime() - 1), { zone: query.timezone })
    .startOf('week')
    .plus({ weeks: 2 })
    .toJSDate()
}

export const weeklyRetention: Resource<WeeklySeriesQuery, PlannedSeries, Rows['behaviour/retention-weekly.sql']> = {
  name: 'retention',
  schema: weeklySeriesSchema,
  parse: parseSeries,
  plan: planSteps(decideActive),
  compile(query) {
    const [active] = query.active.steps
    return compileTemplate(
      'behaviour/retention-weekly.sql',
      { ...windowParams(query.projectId, query.window), readTo: toClickHouseTime(seriesReadTo(query)), tz: query.timezone },
      { active_match: { sql: active.sql, params: mergeParams([active.params, query.active.filterParams], 'the filters') } },
    )
  },
  shape(rows, query) {
    return {
      body: rows.map((row) => ({
        date: formatInstant(new Date(Number(row.week_start) * 1000), query.timezone),
        active_users: Number(row.active_users),
        retained_users: Number(row.retained_users),
        retention: percent(Number(row.retained_users), Number(row.active_users)),
      })),
    }
  },
}

/** `/retention`: OpenPanel's weekly series, or Quarry's cohort table with `detail=true`. */
export const openPanelRetention = eitherByDetail({ name: 'retention', brief: weeklyRetention, detailed: retention })

/** OpenPanel's defaults of its cohort route (`getRetentionCohortCore`): weeks, `on_or_after`, 12 periods, about 12 weeks back. */
const COHORT_DEFAULTS = { period: 'week', criteria: 'on_or_after', periods: '12', range: SERIES_RANGE }

const { properties: retentionProperties, ...retentionRest } = retentionSchema
const cohortSchema = {
  ...retentionRest,
  properties: Object.fromEntries(
    Object.entries(retentionProperties).map(([name, property]) =>
      name in COHORT_DEFAULTS ? [name, { ...property, default: COHORT_DEFAULTS[name as keyof typeof COHORT_DEFAULTS] }] : [name, property],
    ),
  ),
}

/** Quarry's retention with OpenPanel's cohort defaults (its schema says them, its parse fills them in). */
const cohortRetention: typeof retention = {
  ...retention,
  name: 'retention/cohort',
  schema: cohortSchema,
  parse: (raw, scope) => retention.parse({ ...COHORT_DEFAULTS, ...raw }, scope),
}

/** A cohort of Quarry's table, as its shape gives it. */
interface Cohort {
  date: string
  size: number
  values: (number | null)[]
}

/** OpenPanel's row: a share is a fraction of 1 with 2 decimals; a period not begun yet counts 0. */
const cohortRow = (label: string, size: number, values: number[], shares: number[]) => ({
  cohort_interval: label,
  sum: size,
  values,
  percentages: shares,
})

/**
 * OpenPanel's cohort rows (`processCohortData`): the cohorts that have visitors, after a weighted average
 * whose share of period k pools the cohorts that have reached it, and whose size and values are those of a
 * cohort of the mean size.
 */
export function openPanelCohorts(cohorts: readonly Cohort[]) {
  const kept = cohorts.filter((cohort) => cohort.size > 0)
  if (!kept.length) return []
  const periods = kept[0].values.length
  const rows = kept.map((cohort) => {
    const values = cohort.values.map((value) => value ?? 0)
    return cohortRow(
      cohort.date,
      cohort.size,
      values,
      values.map((value) => round2(value / cohort.size)),
    )
  })
  const meanSize = Math.round(kept.reduce((sum, cohort) => sum + cohort.size, 0) / kept.length)
  const rates = Array.from({ length: periods }, (_, k) => {
    const reached = kept.filter((cohort) => cohort.values[k] !== null)
    const size = reached.reduce((sum, cohort) => sum + cohort.size, 0)
    return size ? reached.reduce((sum, cohort) => sum + (cohort.values[k] as number), 0) / size : 0
  })
  return [
    cohortRow(
      'Weighted Average',
      meanSize,
      rates.map((rate) => Math.round(rate * meanSize)),
      rates.map(round2),
    ),
    ...rows,
  ]
}

export const openPanelRetentionCohort = briefUnlessDetailed(cohortRetention, (answer) => ({
  ...answer,
  body: openPanelCohorts((answer.body as { cohorts: Cohort[] }).cohorts),
}))
