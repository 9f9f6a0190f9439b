// What the abuse bench reads from the gateway's own record of its statements: each template's time in the
// engine under an attack (from Prometheus), and for the second client's statements whom they waited for.
import type { Scrape } from '../loadtest/prometheus'
import { ms } from './abuse-common'
import type { FinishedStatement } from './gateway'
import { percentile } from './percentile'

/**
 * Statements per template and outcome between two scrapes, and their mean time in the engine, longest first
 * (a statement stopped at its deadline while it ran counts its time until then).
 */
export function statementTimes(before: Scrape, after: Scrape): { template: string; count: number; meanMs: number }[] {
  const byTemplate = new Map<string, { count: number; seconds: number }>()
  for (const [series, value] of after) {
    const match = /^quarry_statement_duration_seconds_(sum|count)\{(?=.*outcome="([a-z]+)").*template="([^"]+)"/.exec(series)
    if (!match) continue
    const key = match[2] === 'ok' ? match[3] : `${match[3]} (${match[2]})`
    const entry = byTemplate.get(key) ?? { count: 0, seconds: 0 }
    const change = value - (before.get(series) ?? 0)
    if (match[1] === 'sum') entry.seconds += change
    else entry.count += change
    byTemplate.set(key, entry)
  }
  return [...byTemplate]
    .filter(([, entry]) => entry.count > 0 && entry.seconds > 0)
    .map(([template, entry]) => ({ template, count: entry.count, meanMs: (entry.seconds / entry.count) * 1000 }))
    .sort((a, b) => b.meanMs - a.meanMs)
}

/**
 * "Waits at most one statement already running", counted from the gateway's own record of its statements:
 * for each data statement of the second client, the other clients' data statements that got a turn while it
 * waited (0 when it went next), and the time left of the one running when it asked.
 */
function overtaking(statements: FinishedStatement[], clientId: string) {
  // Others' turns: those that ended well, and those given up while they ran until the engine stopped them
  // (a statement that left the queue without a turn ran nothing).
  const data = statements.filter((statement) => statement.lane === 'data')
  const ran = data.filter((statement) => statement.clientId !== clientId && (statement.outcome === 'ok' || statement.outcome === 'stopped'))
  const end = (statement: FinishedStatement) => statement.stoppedAt ?? statement.endedAt
  return data
    .filter((statement) => statement.clientId === clientId && statement.outcome !== 'stopped')
    .map((statement) => ({
      template: statement.template,
      outcome: statement.outcome,
      waitMs: statement.admittedAt - statement.queuedAt,
      overtaken: ran.filter((other) => other.admittedAt > statement.queuedAt && other.admittedAt < statement.admittedAt).length,
      runningLeftMs: Math.max(
        0,
        ...ran
          .filter((other) => other.admittedAt <= statement.queuedAt && end(other) > statement.queuedAt)
          .map((other) => end(other) - statement.queuedAt),
      ),
    }))
}

export function printOvertaking(statements: FinishedStatement[], clientId: string): void {
  const overruns = statements
    .filter((statement) => statement.stoppedAt !== undefined)
    .map((statement) => (statement.stoppedAt as number) - statement.endedAt)
  if (overruns.length) {
    console.log(
      `statements given up while they ran: ${overruns.length}; the engine stopped them after p50 ${ms(percentile(overruns, 50))} ms, max ${ms(Math.max(...overruns))} ms`,
    )
  }
  const rows = overtaking(statements, clientId)
  if (!rows.length) return
  const waits = rows.map((row) => row.waitMs).sort((a, b) => a - b)
  const counts = new Map<number, number>()
  for (const row of rows) counts.set(row.overtaken, (counts.get(row.overtaken) ?? 0) + 1)
  const beyondRunning = rows.map((row) => row.waitMs - row.runningLeftMs).sort((a, b) => a - b)
  const outcomes = new Map<string, number>()
  for (const row of rows) outcomes.set(`${row.template} ${row.outcome}`, (outcomes.get(`${row.template} ${row.outcome}`) ?? 0) + 1)
  console.log(
    `the second client's ${rows.length} data statements (${[...outcomes].map(([key, count]) => `${key} ${count}`).join(', ')}): others' statements started while one waited: ${[
      ...counts,
    ]
      .sort(([a], [b]) => a - b)
      .map(([count, times]) => `${count} for ${times}`)
      .join(
        ', ',
      )}; wait p50 ${ms(percentile(waits, 50))} ms, p95 ${ms(percentile(waits, 95))} ms, max ${ms(waits.at(-1) ?? 0)} ms; wait beyond what was left of the statement running when it asked: p95 ${ms(percentile(beyondRunning, 95))} ms, max ${ms(beyondRunning.at(-1) ?? 0)} ms`,
  )
}

/**
 * The statements the second client's data statements waited behind: for each of its waits, the other
 * clients' data statement that held the lane when it asked (the longest left, when several), by template,
 * with how often and how long that statement ran in all (from its turn to its end).
 */
export function printWaitedBehind(statements: FinishedStatement[], clientId: string): void {
  const data = statements.filter((statement) => statement.lane === 'data')
  const end = (statement: FinishedStatement) => statement.stoppedAt ?? statement.endedAt
  const others = data.filter(
    (statement) => statement.clientId !== clientId && statement.outcome !== 'cancelled' && statement.outcome !== 'timeout',
  )
  const behind = new Map<string, { waits: number; ranMs: number[] }>()
  for (const own of data.filter((statement) => statement.clientId === clientId && statement.outcome !== 'stopped')) {
    const holding = others
      .filter((other) => other.admittedAt <= own.queuedAt && end(other) > own.queuedAt)
      .sort((a, b) => end(b) - end(a))[0]
    const key = holding ? holding.template : '(nothing: the lane was free)'
    const entry = behind.get(key) ?? { waits: 0, ranMs: [] }
    entry.waits += 1
    if (holding) entry.ranMs.push(end(holding) - holding.admittedAt)
    behind.set(key, entry)
  }
  if (!behind.size) return
  const rows = [...behind].sort(([, a], [, b]) => b.waits - a.waits)
  console.log(
    `the second client's data statements asked while these held the data lane: ${rows
      .map(
        ([template, entry]) =>
          `${template} ${entry.waits}×${entry.ranMs.length ? ` (it ran p50 ${ms(percentile(entry.ranMs, 50))} ms, max ${ms(Math.max(...entry.ranMs))} ms)` : ''}`,
      )
      .join('; ')}`,
  )
}
