// Chart rows -> the response: zero-filled buckets per series and group, formulas evaluated per bucket,
// previous-window comparisons, per-series and overall metrics, rounding.
import type { ChartQuery, EventItem, FormulaItem } from './chart-params'
import { buckets, type Bucket } from '../core/dates'
import { evaluateFormula } from './formula'
import { round2 } from '../core/rounding'

export interface ChartRow {
  item: number
  rank: number
  labels: string[]
  period: 'current' | 'previous'
  bucket: number
  value: number
}

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

interface Line {
  letter: string
  group?: { rank: number; labels: string[] }
  name: string
  displayName?: string
  current: Value[]
  previous?: Value[]
}

export function shapeChart(rows: ChartRow[], query: ChartQuery) {
  const starts = buckets(query.window, query.interval, query.timezone)
  const previousStarts = query.previousWindow ? buckets(query.previousWindow, query.interval, query.timezone) : []
  const dates = starts.map((bucket) => bucket.date)
  const index = new Map<string, number>()
  for (const row of rows) index.set(`${row.item}|${row.rank}|${row.period}|${row.bucket}`, Number(row.value))
  const valuesOf = ({ item, rank, period }: { item: number; rank: number; period: ChartRow['period'] }, listed: readonly Bucket[]) =>
    listed.map((bucket) => index.get(`${item}|${rank}|${period}|${bucket.seconds}`) ?? 0)
  const alignPrevious = (values: Value[]) => starts.map((_, i) => (i < values.length ? values[i] : 0))

  const ungrouped = new Map<string, { current: Value[]; previous: Value[] }>()
  const lines: Line[] = []
  query.items.forEach((item, itemIndex) => {
    if (item.kind === 'formula') return
    if (query.breakdowns.length === 0) {
      const current = valuesOf({ item: itemIndex, rank: 0, period: 'current' }, starts)
      const previous = valuesOf({ item: itemIndex, rank: 0, period: 'previous' }, previousStarts)
      ungrouped.set(item.letter, { current, previous })
      lines.push(eventLine(item, current, query.previousWindow ? previous : undefined))
      return
    }
    const groups = new Map<number, string[]>()
    for (const row of rows) if (row.item === itemIndex && row.rank > 0) groups.set(Number(row.rank), row.labels)
    for (const [rank, labels] of [...groups].sort(([a], [b]) => a - b)) {
      const previous = query.previousWindow ? valuesOf({ item: itemIndex, rank: rank, period: 'previous' }, previousStarts) : undefined
      lines.push({ ...eventLine(item, valuesOf({ item: itemIndex, rank: rank, period: 'current' }, starts), previous), group: { rank, labels } })
    }
  })
  for (const item of query.items) {
    if (item.kind === 'formula') lines.splice(query.items.indexOf(item), 0, formulaLine(item, ungrouped, { buckets: starts.length, previousBuckets: previousStarts.length, withPrevious: Boolean(query.previousWindow) }))
  }

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

function eventLine(item: EventItem, current: Value[], previous: Value[] | undefined): Line {
  return { letter: item.letter, name: item.name, displayName: item.displayName, current, previous }
}

function formulaLine(
  item: FormulaItem,
  ungrouped: Map<string, { current: Value[]; previous: Value[] }>,
  { buckets, previousBuckets, withPrevious }: { buckets: number; previousBuckets: number; withPrevious: boolean },
): Line {
  const evaluate = (period: 'current' | 'previous', count: number) =>
    Array.from({ length: count }, (_, i) => evaluateFormula(item.formula, (letter) => ungrouped.get(letter)?.[period][i] ?? 0))
  return {
    letter: item.letter,
    name: item.text,
    displayName: item.displayName,
    current: evaluate('current', buckets),
    previous: withPrevious ? evaluate('previous', previousBuckets) : undefined,
  }
}
