// `compare=previous|year` (docs/definitions.md, "Compared with before"): the compared window, and the
// `previous` and `change` a compared answer gains beside each figure. The run stage asks the compared
// question (queries/run/answer.ts); a resource says how through its `compare` hook (queries/core/pipeline.ts).
import { DateTime } from 'luxon'
import type { Fragment } from './compiled'
import type { Window } from './dates'

export const COMPARE_MODES = ['previous', 'year'] as const
export type CompareMode = (typeof COMPARE_MODES)[number]

/** The `compare` query parameter of every route that compares. */
export const COMPARE_PROPERTY = {
  type: 'string',
  enum: COMPARE_MODES,
  description:
    '`previous`: the window of equal length just before; `year`: the same local dates a year before. Rows gain `previous` and `change`',
}

/**
 * The compared window. `previous`: `[start - (end - start), start)`, in elapsed time. `year`: the local start
 * and end a calendar year back in `zone`; luxon keeps the day of the month where it exists (29 February
 * becomes 28 February) and resolves a local time that does not exist as it resolves every parsed local time
 * (queries/core/dates.ts), moved forward by the gap.
 */
export function comparedWindow(window: Window, zone: string, mode: CompareMode): Window {
  if (mode === 'previous') {
    const length = window.end.getTime() - window.start.getTime()
    return { start: new Date(window.start.getTime() - length), end: window.start }
  }
  const yearBack = (instant: Date) => DateTime.fromJSDate(instant, { zone }).minus({ years: 1 }).toJSDate()
  return { start: yearBack(window.start), end: yearBack(window.end) }
}

/** What the run stage needs of a planned request to compare it: its window, its zone and the mode asked. */
export interface Comparable {
  window: Window
  timezone: string
  compare?: CompareMode
}

/**
 * How a resource's answer is compared. `question` gives the request over the compared window (parsed, so the
 * run stage plans it as any request), restricted to the keys the main answer `body` kept, with no paging:
 * undefined when it kept none. `merge` adds `previous` and `change` to the body from the compared body
 * (undefined when there was no compared question).
 */
export interface CompareHook<Parsed, Planned> {
  asked(query: Planned): Comparable
  question(options: { parsed: Parsed; planned: Planned; window: Window; body: unknown }): Parsed | undefined
  merge(body: unknown, previous: unknown, query: Planned): unknown
}

/** A figure in hundredths, exact for the 2-decimal values answers carry. */
const hundredths = (value: number) => BigInt(Math.round(value * 100))

/** n / d (d > 0) rounded to an integer, halves away from zero. */
function divideRounded(n: bigint, d: bigint): bigint {
  const sign = n < 0n ? -1n : 1n
  const magnitude = n < 0n ? -n : n
  return sign * ((2n * magnitude + d) / (2n * d))
}

/**
 * `change` of a count, sum or duration: round2(100 x (now - before) / before), halves away from zero; null
 * when either is null or before is 0. Exact: both are read in hundredths.
 */
export function relativeChange(now: number | null, before: number | null): number | null {
  if (now === null || before === null || before === 0) return null
  const b = hundredths(before)
  return Number(divideRounded(10_000n * (hundredths(now) - b), b)) / 100 || 0
}

/** `change` of a rate: the difference in points, round2(now - before); null when either is null. */
export function pointsChange(now: number | null, before: number | null): number | null {
  if (now === null || before === null) return null
  return Number(hundredths(now) - hundredths(before)) / 100 || 0
}

/** Fields whose `change` is a difference in points; every other numeric field's is relative. */
export const RATE_FIELDS: ReadonlySet<string> = new Set([
  'bounce_rate',
  'exit_rate',
  'conversion_rate',
  'conversionRateFromStart',
  'overallConversionRate',
  'dropoffPercent',
])

type Figures = Record<string, unknown>

/** The numeric fields of a row (nulls where a figure has no value), by `fields`. */
export function figuresOf(row: Figures, fields: readonly string[]): Record<string, number | null> {
  return Object.fromEntries(fields.map((field) => [field, (row[field] as number | null | undefined) ?? null]))
}

/** `change` of each field of `fields` from `before` (null: every change null). */
export function changesOf(now: Figures, before: Figures | null, fields: readonly string[]): Record<string, number | null> {
  return Object.fromEntries(
    fields.map((field) => {
      const was = before === null ? null : ((before[field] as number | null | undefined) ?? null)
      const is = (now[field] as number | null | undefined) ?? null
      return [field, RATE_FIELDS.has(field) ? pointsChange(is, was) : relativeChange(is, was)]
    }),
  )
}

/** A row with its `previous` figures (null: the key has no data there) and their `change`. */
export function withPrevious<R extends Figures>(row: R, before: Figures | null, fields: readonly string[]) {
  return { ...row, previous: before === null ? null : figuresOf(before, fields), change: changesOf(row, before, fields) }
}

/**
 * The rows of a list with `previous` and `change`: each row's key (`keyOf`, the same text for the same key in
 * both answers, a tuple's values for a row of several dimensions) looked up in the compared rows.
 */
export function compareRows<R extends Figures>(options: {
  rows: readonly R[]
  previous: readonly Figures[] | undefined
  keyOf(row: Figures): string
  fields: readonly string[]
}) {
  const before = new Map((options.previous ?? []).map((row) => [options.keyOf(row), row]))
  return options.rows.map((row) => withPrevious(row, before.get(options.keyOf(row)) ?? null, options.fields))
}

/**
 * A compared question's keys: the key of each row its main answer kept, as text in the engine's terms (a page's
 * origin and path, a breakdown's prefix, '' without one, and value, an event name, a table row's dimension
 * values), and the route they are of, so that compared breakdowns of different dimensions never join into
 * one statement (queries/run/joined-runs.ts).
 */
export interface KeptKeys {
  of: string
  keys: string[][]
}

/**
 * SQL: whether a grouped row's key, its `columns` as text, is one of the kept keys: one bound array per
 * column (`kept0`, `kept1`, ...), of one length, zipped into the constant set `IN` reads, so the rows are kept
 * after the grouping and the question reads what it reads without them. TRICKY: as a subquery
 * (`IN (SELECT arrayJoin(arrayZip(...)))`) the set made the compared statement slower than the same question
 * without kept keys; as the zipped constant it was not (docs/measurements.md, "Compare"). `keyword` (`HAVING`,
 * `WHERE`, `AND`) comes before it; nothing when no key is kept.
 */
export function keptKeysCondition(kept: KeptKeys | undefined, columns: readonly string[], keyword: string): Fragment {
  if (!kept) return { sql: '', params: {} }
  const params = Object.fromEntries(columns.map((_, index) => [`kept${index}`, kept.keys.map((key) => key[index])]))
  const arrays = columns.map((_, index) => `{kept${index}:Array(String)}`)
  const key = columns.map((column) => `toString(${column})`)
  const sql =
    columns.length === 1 ? `${keyword} ${key[0]} IN ${arrays[0]}` : `${keyword} (${key.join(', ')}) IN arrayZip(${arrays.join(', ')})`
  return { sql, params }
}

/** A paged list request that compares: its page is the rows whose keys the compared question asks for. */
export interface ComparedList extends Comparable {
  limit: number
  cursor: number
}

/**
 * The hook of a list: the compared question is the request over the compared window, its first page as long
 * as the answer's rows, narrowed by `restrict` to their keys (which may widen the page for a restriction that
 * keeps more keys than asked, a product of two columns' values); rows are matched again by `keyOf`, and
 * `fields` are the numeric fields of a row that `previous` and `change` carry.
 */
export function listCompare<Parsed extends ComparedList, Planned extends ComparedList>(spec: {
  fields(query: Planned): readonly string[]
  keyOf(row: Figures): string
  restrict(parsed: Parsed, rows: readonly Figures[]): Parsed
}): CompareHook<Parsed, Planned> {
  return {
    asked: (query) => query,
    question({ parsed, window, body }) {
      const rows = body as Figures[]
      if (rows.length === 0) return undefined
      const { compare: _compare, ...request } = parsed
      return spec.restrict({ ...request, window, cursor: 1, limit: rows.length } as Parsed, rows)
    },
    merge: (body, previous, query) =>
      compareRows({ rows: body as Figures[], previous: previous as Figures[] | undefined, keyOf: spec.keyOf, fields: spec.fields(query) }),
  }
}
