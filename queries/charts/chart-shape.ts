// Chart rows -> the response: zero-filled buckets per series and group, formulas evaluated per bucket and
// group, previous-window comparisons, per-series and overall metrics, rounding.
import type { ChartQuery, EventItem, FormulaItem } from './chart-params'
import { buckets, type Bucket } from '../core/dates'
import { evaluateFormula, lettersOf } from './formula'
import { round2 } from '../core/rounding'
import type { Rows } from '../core/rows.generated'

/** A row of an item, a group's rank, a period ('current' or 'previous') and a bucket (sql/export/chart.sql). */
export type ChartRow = Rows['export/chart.sql']

type Value = number | null

const round2OrNull = (value: Value) => (value === null ? null : round2(value))

interface Comparison {
  value: Value
  diff: number | null
  state: 'positive' | 'negative' | 'neutral'
}

function compare(current: Value, previous: Value): Comparison {
  const diff = current === null || previous === null || previous === 0 ? null : round2(((current - previous) / previous) * 100)
  return { value: round2OrNull(previous), diff, state: diff === null || diff === 0 ? 'neutral' : diff > 0 ? 'positive' : 'negative' }
}

function summarize(values: Value[]) {
  const present = values.filter((value): value is number => value !== null)
  const sum = present.length ? present.reduce((total, value) => total + value, 0) : null
  return {
    sum,
    average: sum === null ? null : sum / present.length,
    min: present.length ? Math.min(...present) : null,
    max: present.length ? Math.max(...present) : null,
  }
}

/** One line of the response: an item, or one breakdown group of it. */
interface Line {
  letter: string
  group?: { rank: number; labels: string[] }
  name: string
  displayName?: string
  current: Value[]
  previous?: Value[]
}

/** An event item's values for one kept group (the whole item without breakdowns: labels []). */
interface GroupValues {
  labels: string[]
  rank: number
  current: Value[]
  previous: Value[]
}

const labelsKey = (labels: readonly string[]) => JSON.stringify(labels)

/** Group labels in the engine's order of string arrays: element by element, bytewise. */
function compareLabels(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const order = Buffer.compare(Buffer.from(a[i]), Buffer.from(b[i]))
    if (order !== 0) return order
  }
  return a.length - b.length
}

/** The groups the engine kept for an item, as (rank, labels), by rank. */
function rankedGroups(rows: readonly ChartRow[], itemIndex: number): [number, string[]][] {
  const ranks = new Map<number, string[]>()
  for (const row of rows) if (row.item === itemIndex && row.rank > 0) ranks.set(Number(row.rank), [...row.labels])
  return [...ranks].sort(([a], [b]) => a - b)
}

export function shapeChart(rows: readonly ChartRow[], query: ChartQuery) {
  const starts = buckets(query.window, query.interval, query.timezone)
  const previousStarts = query.previousWindow ? buckets(query.previousWindow, query.interval, query.timezone) : []
  const dates = starts.map((bucket) => bucket.date)
  const index = new Map<string, number>()
  for (const row of rows) index.set(`${row.item}|${row.rank}|${row.period}|${row.bucket}`, Number(row.value))
  const valuesOf = ({ item, rank, period }: { item: number; rank: number; period: 'current' | 'previous' }, listed: readonly Bucket[]) =>
    listed.map((bucket) => index.get(`${item}|${rank}|${period}|${bucket.seconds}`) ?? 0)
  const alignPrevious = (values: Value[]) => starts.map((_, i) => (i < values.length ? values[i] : 0))

  /** Each event item's kept groups, keyed by their labels, in rank order (one, rank 0, without breakdowns). */
  const groupsOf = new Map<string, Map<string, GroupValues>>()
  query.items.forEach((item, itemIndex) => {
    if (item.kind === 'formula') return
    const ranked: [number, string[]][] = query.breakdowns.length ? rankedGroups(rows, itemIndex) : [[0, []]]
    const groups = ranked.map(([rank, labels]): [string, GroupValues] => {
      const current = valuesOf({ item: itemIndex, rank, period: 'current' }, starts)
      const previous = valuesOf({ item: itemIndex, rank, period: 'previous' }, previousStarts)
      return [labelsKey(labels), { labels, rank, current, previous }]
    })
    groupsOf.set(item.letter, new Map(groups))
  })
  const context: LineContext = {
    groupsOf,
    buckets: starts.length,
    previousBuckets: previousStarts.length,
    withPrevious: Boolean(query.previousWindow),
    grouped: query.breakdowns.length > 0,
  }
  const lines = query.items.flatMap((item) => (item.kind === 'formula' ? formulaLines(item, context) : eventLines(item, context)))

  const series = lines.map((line) => {
    const totals = summarize(line.current)
    const previousTotals = line.previous ? summarize(line.previous) : undefined
    const alignedPrevious = line.previous ? alignPrevious(line.previous) : undefined
    return {
      id: line.group ? `${line.letter}-${line.group.rank}` : line.letter,
      names: [line.displayName ?? line.name, ...(line.group?.labels ?? [])],
      event: {
        id: line.letter,
        name: line.name,
        breakdowns: Object.fromEntries(query.breakdowns.map((breakdown, i) => [breakdown.name, line.group?.labels[i] ?? ''])),
      },
      metrics: {
        sum: round2OrNull(totals.sum),
        average: round2OrNull(totals.average),
        min: round2OrNull(totals.min),
        max: round2OrNull(totals.max),
        ...(previousTotals ? { previous: compare(totals.sum, previousTotals.sum) } : {}),
      },
      data: dates.map((date, i) => ({
        date,
        count: round2OrNull(line.current[i]),
        ...(alignedPrevious ? { previous: compare(line.current[i], alignedPrevious[i]) } : {}),
      })),
    }
  })
  const all = summarize(lines.flatMap((line) => line.current))
  const sumOfSums = lines.map((line) => summarize(line.current).sum).filter((sum): sum is number => sum !== null)
  return {
    series,
    metrics: {
      sum: sumOfSums.length ? round2(sumOfSums.reduce((total, sum) => total + sum, 0)) : null,
      average: round2OrNull(all.average),
      min: round2OrNull(all.min),
      max: round2OrNull(all.max),
    },
  }
}

interface LineContext {
  groupsOf: Map<string, Map<string, GroupValues>>
  buckets: number
  previousBuckets: number
  withPrevious: boolean
  grouped: boolean
}

function eventLines(item: EventItem, { groupsOf, withPrevious, grouped }: LineContext): Line[] {
  return [...(groupsOf.get(item.letter) as Map<string, GroupValues>).values()].map((group) => ({
    letter: item.letter,
    name: item.name,
    displayName: item.displayName,
    current: group.current,
    previous: withPrevious ? group.previous : undefined,
    ...(grouped ? { group: { rank: group.rank, labels: group.labels } } : {}),
  }))
}

/**
 * A formula's lines: one per group of the union of the kept groups of the items it names (one line without
 * breakdowns), each bucket the formula over those items' values for the group, 0 where an item did not keep
 * it. Groups rank by their sum as answered (rounded), largest first and nulls last, then by their labels.
 */
function formulaLines(item: FormulaItem, { groupsOf, buckets, previousBuckets, withPrevious, grouped }: LineContext): Line[] {
  const letters = [...new Set(lettersOf(item.formula))]
  const union = new Map<string, string[]>()
  for (const letter of letters) for (const [key, group] of groupsOf.get(letter) as Map<string, GroupValues>) union.set(key, group.labels)
  const lines = [...union].map(([key, labels]) => {
    const evaluate = (period: 'current' | 'previous', count: number) =>
      Array.from({ length: count }, (_, i) => evaluateFormula(item.formula, (letter) => groupsOf.get(letter)?.get(key)?.[period][i] ?? 0))
    return { labels, current: evaluate('current', buckets), previous: withPrevious ? evaluate('previous', previousBuckets) : undefined }
  })
  if (grouped) {
    const sumOf = new Map(lines.map((line) => [line, round2OrNull(summarize(line.current).sum)]))
    lines.sort((a, b) => compareSums(sumOf.get(a) as Value, sumOf.get(b) as Value) || compareLabels(a.labels, b.labels))
  }
  return lines.map((line, rank) => ({
    letter: item.letter,
    name: item.text,
    displayName: item.displayName,
    current: line.current,
    previous: line.previous,
    ...(grouped ? { group: { rank: rank + 1, labels: line.labels } } : {}),
  }))
}

/** Larger sums first, null last. */
const compareSums = (a: Value, b: Value): number => (a === null || b === null ? (a === b ? 0 : a === null ? 1 : -1) : b - a)
