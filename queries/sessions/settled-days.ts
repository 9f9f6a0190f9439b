// A session question's settled days: its settled check (sessions/settled-days.sql), and the params the
// check's rows bind, computed without the engine. The check itself runs in the run stage
// (queries/run/settled-check.ts), before the statement is compiled with its rows.
import { compileTemplate, type CompiledQuery } from '../core/compiled'
import { COMPACTION_DEFINITION } from './definition'
import { DAY_MS } from '../core/dates'
import { toClickHouseTime, type SettledRow } from '../core/pipeline'
import type { SessionQuestion } from './question'

export type { SettledRow }

/**
 * The table of the compactions' records (migrations/002_derived_tables.sql), which the settled check reads: a
 * day without a record there is regrouped, and compacted again by the next compaction (as a bench does).
 */
export const COMPACTION_RECORDS = 'session_compactions'

/** The window's UTC days and the session lookback, which a session statement and its settled check both bind. */
export interface DayParams {
  firstDay: string
  lastDay: string
  lookbackSeconds: number
}

/**
 * The params a check's rows bind: the settled days, the compaction each is read from (as text: beyond 2^53),
 * and the range of partial rows the other days are regrouped from (the lookback before the first such day to
 * the lookback after the last; empty when every day is settled).
 * TRICKY: computed here, not in the statement. As SQL over the bound days (a lambda per `arrayFilter` and
 * `arrayMap`), ClickHouse 26 did not fold them to constants and evaluated them for every partial row read
 * (30-day country on 10M events: 71 -> 60 ms with them bound; pages 248 -> 209 ms).
 */
export interface SettledParams {
  settledDays: string[]
  settledCompactions: string[]
  regroupFrom: string
  regroupTo: string
}

/** The names of the params a check's rows bind, as the statements that run name them. */
export const SETTLED_PARAM_NAMES: readonly (keyof SettledParams)[] = ['settledDays', 'settledCompactions', 'regroupFrom', 'regroupTo']

/** The params that `rows` (settled days of `days`; none: no day settled) bind. */
export function settledParams(days: DayParams, rows: readonly SettledRow[]): SettledParams {
  const settled = new Set(rows.map((row) => Date.parse(row.day)))
  let first = Date.parse(days.firstDay)
  let last = Date.parse(days.lastDay)
  while (first <= last && settled.has(first)) first += DAY_MS
  while (last >= first && settled.has(last)) last -= DAY_MS
  const lookbackMs = days.lookbackSeconds * 1000
  const [from, to] =
    first > last ? [Date.parse(days.firstDay), Date.parse(days.firstDay)] : [first - lookbackMs, last + DAY_MS + lookbackMs]
  return {
    settledDays: rows.map((row) => row.day),
    settledCompactions: rows.map((row) => row.compaction),
    regroupFrom: toClickHouseTime(new Date(from)),
    regroupTo: toClickHouseTime(new Date(to)),
  }
}

const utcDay = (time: number) => Math.floor(time / DAY_MS) * DAY_MS
const dateText = (time: number) => new Date(time).toISOString().slice(0, 10)

/** The window's first and last UTC days, as times. */
const firstDay = (question: SessionQuestion) => utcDay(question.window.start.getTime())
const lastDay = (question: SessionQuestion) => utcDay(question.window.end.getTime() - 1)

/** The window's UTC days and the lookback: a settled check binds them, its statement the days and what its rows give. */
export function dayParams(question: SessionQuestion): DayParams {
  return {
    lookbackSeconds: Math.round(question.lookbackMs / 1000),
    firstDay: dateText(firstDay(question)),
    lastDay: dateText(lastDay(question)),
  }
}

/**
 * The settled check of a session question (sessions/settled-days.sql): the window's UTC days read
 * combined, and the partial rows their read ranges hold now, counted from the lookback before the first
 * day to the lookback after the last.
 */
export function settledCheck(question: SessionQuestion): CompiledQuery {
  return compileTemplate('sessions/settled-days.sql', {
    projectId: question.projectId,
    ...dayParams(question),
    countFrom: toClickHouseTime(new Date(firstDay(question) - question.lookbackMs)),
    countTo: toClickHouseTime(new Date(lastDay(question) + DAY_MS + question.lookbackMs)),
    definition: COMPACTION_DEFINITION,
  })
}
