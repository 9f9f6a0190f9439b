// A session question's settled days: the params its settled check's rows (insights/settled-days.sql) bind,
// computed without the engine; the check itself runs in the run stage (queries/run/settled-check.ts),
// before the statement is compiled with its rows.
import { DAY_MS } from './dates'
import { toClickHouseTime, type SettledRow } from './pipeline'

export type { SettledRow }

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

/** The params that `rows` (settled days of `days`; none: no day settled) bind. */
export function settledParams(days: DayParams, rows: readonly SettledRow[]): SettledParams {
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
