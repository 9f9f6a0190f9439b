// A session question's settled days: the params its settled check's rows (insights/settled-days.sql) bind,
// computed without the engine; the check itself runs in the run stage (queries/run/settled-check.ts).
import type { CompiledQuery } from './compiled'
import { DAY_MS } from './dates'
import { toClickHouseTime } from './pipeline'

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

/** A row of a settled check (insights/settled-days.sql). */
export interface SettledRow {
  day: string
  compaction: string
}

/** The params that `rows` (settled days of `days`, none for a statement compiled alone) bind. */
export function settledParams(days: DayParams, rows: SettledRow[]): SettledParams {
  const settled = new Set(rows.map((row) => Date.parse(row.day)))
  let first = Date.parse(days.firstDay)
  let last = Date.parse(days.lastDay)
  while (first <= last && settled.has(first)) first += DAY_MS
  while (last >= first && settled.has(last)) last -= DAY_MS
  const lookbackMs = days.lookbackSeconds * 1000
  const [from, to] = first > last ? [Date.parse(days.firstDay), Date.parse(days.firstDay)] : [first - lookbackMs, last + DAY_MS + lookbackMs]
  return {
    settledDays: rows.map((row) => row.day),
    settledCompactions: rows.map((row) => row.compaction),
    regroupFrom: toClickHouseTime(new Date(from)),
    regroupTo: toClickHouseTime(new Date(to)),
  }
}

/** The window's days and lookback that `compiled`'s settled check binds (the statement binds the days only). */
function dayParamsOf(compiled: CompiledQuery): DayParams {
  const { firstDay, lastDay, lookbackSeconds } = compiled.settledCheck?.params ?? {}
  if (typeof firstDay !== 'string' || typeof lastDay !== 'string' || typeof lookbackSeconds !== 'number') {
    throw new Error(`${compiled.template} has no settled check binding firstDay, lastDay and lookbackSeconds`)
  }
  return { firstDay, lastDay, lookbackSeconds }
}

/** `compiled` with the settled days its check's `rows` name bound (see `SettledParams`). */
export function bindCheckRows(compiled: CompiledQuery, rows: SettledRow[]): CompiledQuery {
  return { ...compiled, params: { ...compiled.params, ...settledParams(dayParamsOf(compiled), rows) } }
}
