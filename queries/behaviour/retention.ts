// `GET /insights/:projectId/retention`: per cohort (the period of a visitor's first start event in the
// window), how many visitors come back with a return event in each following period.
import { DateTime } from 'luxon'
import { compileTemplate, mergeParams, sqlOnly } from '../core/compiled'
import { bucketCount, buckets } from '../core/dates'
import { assertNever, invalid, type Issue } from '../core/errors'
import { planSteps, type Resource, type Scope } from '../core/pipeline'
import { toClickHouseTime } from '../core/pipeline'
import type { Rows } from '../core/rows.generated'
import { percent } from '../core/rounding'
import { windowParams } from '../core/window-params'
import { baseOrThrow, behaviourValidator, behaviourSchema, parseBehaviourBase, type BehaviourBase } from './behaviour-params'
import { regexIssues, type RegexPattern } from '../core/regex-budget'
import { compileSteps, eventColumnIssues, parseStepText, type CompiledSteps, type Step } from './steps'

export const PERIODS = ['day', 'week', 'month'] as const
export type Period = (typeof PERIODS)[number]
export const CRITERIA = ['on', 'on_or_after'] as const
export type Criteria = (typeof CRITERIA)[number]
export const MAX_PERIODS = 24
/** Cohorts a request may have: a year of days, with room for the longest windows. */
export const MAX_COHORTS = 400

export const retentionSchema = behaviourSchema({
  startEvent: {
    type: 'string',
    description: 'The step that places a visitor in a cohort (a JSON step or an event name); any event by default',
  },
  returnEvent: { type: 'string', description: 'The step that counts as coming back; any event by default' },
  period: { type: 'string', enum: PERIODS, default: 'week' },
  periods: { type: 'integer', minimum: 1, maximum: MAX_PERIODS, default: 8 },
  criteria: { type: 'string', enum: CRITERIA, default: 'on' },
})
const validateRetention = behaviourValidator(retentionSchema)

export interface RetentionQuery extends BehaviourBase {
  start: Step
  back: Step
  period: Period
  periods: number
  criteria: Criteria
  now: Date
}

function parseRetention(raw: Record<string, unknown>, scope: Scope): RetentionQuery {
  const issues: Issue[] = []
  const { base, params, patterns } = parseBehaviourBase(raw, scope, validateRetention, issues)
  const typed = params as { startEvent?: string; returnEvent?: string; period: Period; periods: number; criteria: Criteria }
  const stepPatterns: RegexPattern[] = []
  const start = parseStepText(typeof typed.startEvent === 'string' ? typed.startEvent : '*', ['startEvent'], issues, stepPatterns)
  const back = parseStepText(typeof typed.returnEvent === 'string' ? typed.returnEvent : '*', ['returnEvent'], issues, stepPatterns)
  // The request's filters are ANDed into both steps: each step's condition runs their patterns.
  issues.push(
    ...regexIssues([
      { patterns, runs: 2 },
      { patterns: stepPatterns, runs: 1 },
    ]),
  )
  issues.push(...eventColumnIssues(base?.filters ?? [], ['filters']))
  if (base && PERIODS.includes(typed.period)) {
    const cohorts = bucketCount(base.window, typed.period, base.timezone)
    if (cohorts > MAX_COHORTS)
      issues.push({
        path: ['period'],
        message: `this window has ${cohorts} ${typed.period}s, more than ${MAX_COHORTS} cohorts: narrow the window or widen the period`,
      })
  }
  const checked = baseOrThrow(base, issues)
  if (!start || !back) throw invalid(issues)
  return { ...checked, start, back, period: typed.period, periods: typed.periods, criteria: typed.criteria, now: scope.now }
}

/** A retention question after its plan: its start and return steps' conditions compiled (`start_...`, `back_...`). */
export interface PlannedRetention extends RetentionQuery {
  conditions: CompiledSteps
}

/** Plan step: the start step's condition, then the return step's, each compiled once with the request's filters ANDed in. */
function decideRetentionSteps(query: RetentionQuery): PlannedRetention {
  const conditions = compileSteps(
    [
      { prefix: 'start', step: query.start },
      { prefix: 'back', step: query.back },
    ],
    query.filters,
  )
  return { ...query, conditions }
}

/** The start of the period `k` periods after the one starting at `from`, in the request's zone. */
const periodStart = (from: Date, k: number, query: RetentionQuery): Date =>
  DateTime.fromJSDate(from, { zone: query.timezone })
    .plus({ [`${query.period}s`]: k })
    .toJSDate()

/**
 * How many of a cohort's periods (k = 0 its own, up to `periods`) have begun by the question's `now`: a
 * period's start only grows with k, so the count is found from the last period down, and an old cohort
 * (every period begun) costs one date step instead of one per period.
 */
function begunPeriods(from: Date, query: RetentionQuery): number {
  const start = DateTime.fromJSDate(from, { zone: query.timezone })
  const now = query.now.getTime()
  let k = query.periods
  while (k >= 0 && start.plus({ [`${query.period}s`]: k }).toMillis() > now) k -= 1
  return k + 1
}

/** The engine's relative number of the period holding `column`, in the request's zone: days, Monday weeks or months. */
function periodNumber(period: RetentionQuery['period'], column: string): string {
  const unit = { day: 'Day', week: 'Week', month: 'Month' }[period]
  return `toRelative${unit}Num(${column}, {tz:String})`
}

/** Whether a visitor's returns (bit k: a return event k periods after the cohort's) count for period k. */
function returnTest(criteria: Criteria): string {
  switch (criteria) {
    case 'on':
      return 'bitTest(returns, k)'
    case 'on_or_after':
      return 'returns >= bitShiftLeft(toUInt32(1), k)'
    default:
      return assertNever(criteria)
  }
}

/**
 * A return word: the narrowest integer type that holds every period read, or as many UInt256 as needed.
 * TRICKY: a word uses one bit less than its width: the engine shifts an unsigned integer whose top bit is
 * set right as if signed, filling with ones (bitShiftRight(bitShiftLeft(toUInt64(1), 63), 60) has bits 3-8
 * set), so the top bit is never used. A visitor's state is then 8 bytes a word for windows of up to 63
 * periods read (a year of weeks with 8 periods after it), and grouping a year's visitors needs less memory.
 */
interface Word {
  type: 'UInt64' | 'UInt256'
  bits: number
}
const WORDS: readonly Word[] = [
  { type: 'UInt64', bits: 63 },
  { type: 'UInt256', bits: 255 },
]

/** The word for `positions` periods, and how many of them. */
function wordsFor(positions: number): { word: Word; count: number } {
  const word = WORDS.find((candidate) => positions <= candidate.bits) ?? WORDS[WORDS.length - 1]
  return { word, count: Math.ceil(positions / word.bits) }
}

/**
 * A visitor's return words: word j holds the return periods numbered from `bits`·j to `bits`·(j + 1) - 1
 * from the window's first period; the periods read number at most the cohorts plus `periods`. The shift is
 * kept at zero or more on the rows a word skips, since its argument is computed for every row.
 */
function returnWords({ word, count }: { word: Word; count: number }): string {
  return Array.from({ length: count }, (_, j) => {
    const [from, to] = [j * word.bits, (j + 1) * word.bits]
    const bit = j === 0 ? 'position' : `toUInt16(greatest(position - ${from}, 0))`
    const inWord = j === 0 ? `position < ${to}` : `position >= ${from} AND position < ${to}`
    return `,\n      groupBitOrIf(bitShiftLeft(to${word.type}(1), ${bit}), is_return = 1 AND ${inWord}) AS w${j}`
  }).join('')
}

/** The return words as one value whose bit k is period `first + k`: word j moved by `bits`·j - first. */
function relativeReturns({ word, count }: { word: Word; count: number }): string {
  const moved = Array.from({ length: count }, (_, j) =>
    j === 0
      ? 'bitShiftRight(w0, first)'
      : `if(first <= ${j * word.bits}, bitShiftLeft(w${j}, toUInt16(${j * word.bits} - first)), bitShiftRight(w${j}, toUInt16(greatest(first - ${j * word.bits}, 0))))`,
  )
  return moved.reduce((all, next) => `bitOr(${all}, ${next})`)
}

export const retention: Resource<RetentionQuery, PlannedRetention, Rows['behaviour/retention.sql']> = {
  name: 'retention',
  schema: retentionSchema,
  parse: parseRetention,
  plan: planSteps(decideRetentionSteps),
  compile(query) {
    const [start, back] = query.conditions.steps
    const cohorts = buckets(query.window, query.period, query.timezone)
    const readTo = periodStart(cohorts[cohorts.length - 1].start, query.periods + 1, query)
    const current = DateTime.fromJSDate(query.now, { zone: query.timezone }).startOf(query.period).toJSDate()
    const returnsUntil = periodStart(current, 1, query)
    const words = wordsFor(cohorts.length + query.periods)
    return compileTemplate(
      'behaviour/retention.sql',
      {
        ...windowParams(query.projectId, query.window),
        readTo: toClickHouseTime(readTo),
        returnsUntil: toClickHouseTime(returnsUntil),
        periods: query.periods,
        returnBits: 2 ** (query.periods + 1) - 2,
        tz: query.timezone,
      },
      {
        period_number: sqlOnly(periodNumber(query.period, 'created_at')),
        first_period_number: sqlOnly(periodNumber(query.period, "{start:DateTime64(3, 'UTC')}")),
        return_words: sqlOnly(returnWords(words)),
        relative_returns: sqlOnly(relativeReturns(words)),
        start_match: start,
        return_match: { sql: back.sql, params: mergeParams([back.params, query.conditions.filterParams], 'the retention steps') },
        return_test: sqlOnly(returnTest(query.criteria)),
      },
    )
  },
  shape(rawRows, query) {
    // A row's cohort is its period's number: the index of its bucket.
    const rows = new Map(rawRows.map((row) => [Number(row.cohort), row]))
    const cohorts = buckets(query.window, query.period, query.timezone).map((bucket, index) => {
      const row = rows.get(index)
      const size = Number(row?.size ?? 0)
      const begun = begunPeriods(bucket.start, query)
      const values = Array.from({ length: query.periods + 1 }, (_, k) => {
        if (k >= begun) return null
        return k === 0 ? size : Number(row?.returned[k - 1] ?? 0)
      })
      return { date: bucket.date, size, values, percentages: values.map((value) => (value === null ? null : percent(value, size))) }
    })
    const average = Array.from({ length: query.periods + 1 }, (_, k) => {
      const counted = cohorts.filter((cohort) => cohort.values[k] !== null)
      if (!counted.length) return null
      return percent(
        counted.reduce((sum, cohort) => sum + (cohort.values[k] as number), 0),
        counted.reduce((sum, cohort) => sum + cohort.size, 0),
      )
    })
    return { body: { period: query.period, cohorts, average: { percentages: average } } }
  },
}
