// Compaction of settled days (the derived tables of sql/migrations/002_derived_tables.sql): for each UTC day
// whose partial session rows changed since it was last compacted, build a day of every combined table the
// declaration lists (queries/sessions/combined-tables.ts), add each to its month beside the day's older
// compactions, then record what the builds saw; last, delete the compactions no reader can still be reading and have a month whose rows are
// largely such deleted ones rewritten. Runs on the engine's writable connection, one day at a time; on a
// cluster each shard settles its own sessions (server/admin/compaction-sql.ts).
import { DAY_MS } from '../../queries/core/dates'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { combinedTable } from '../../queries/sessions/combined-tables'
import { COMPACTION_DEFINITION } from '../../queries/sessions/definition'
import { MAX_EXECUTION_SECONDS_LIMIT, type Config } from '../config'
import type { Engine } from '../engine'
import { claimLease, keepsLease, releaseLease, renewLease, type Lease } from './compaction-lease'
import { CompactionSql, type DayJob, type RunConstants, type SwapStatements } from './compaction-sql'

export interface CompactOptions {
  /** How far sessions reach past their start (QUARRY_SESSION_LOOKBACK_HOURS), in ms. */
  lookbackMs: number
  /** Only days whose read range ended before this are compacted: the open edge is left to the readers. */
  now: Date
  /**
   * How long a compaction that a newer one replaced is kept after that one was recorded: longer than a
   * settled check's rows naming it are reused plus a statement that read them may run (`compactionOptions`,
   * queries/run/settled-check.ts).
   */
  keepSupersededMs: number
}

export interface CompactReport {
  days: number
  sessions: number
  /** Compactions dropped (per table and day) as no reader could still be reading them. */
  dropped: number
  /** Months (per table) whose rewrite without the rows the drops masked was scheduled. */
  rewritten: number
  /** Tables whose replaced compactions wait for the next run, as a mutation of theirs was still running. */
  deferred: number
  /** Set when another compaction held the lease (server/admin/compaction-lease.ts), so this one did nothing. */
  leaseHeldBy?: string
  seconds: number
}

/**
 * How long a replaced compaction is kept once its successor is recorded, the same for every process on a
 * database: twice the longest time limit any gateway accepts. A gateway reuses a settled check's rows for at
 * most its own limit, and a statement bound with them runs at most that long; a keep time from the
 * compacting process's own limit could be shorter than another replica's.
 */
export const KEEP_SUPERSEDED_MS = 2 * MAX_EXECUTION_SECONDS_LIMIT * 1000

/** A process's compaction settings: its session lookback, and the database-wide keep time. */
export function compactionOptions(config: Pick<Config, 'sessionLookbackHours'>): Pick<CompactOptions, 'lookbackMs' | 'keepSupersededMs'> {
  return { lookbackMs: config.sessionLookbackHours * 3_600_000, keepSupersededMs: KEEP_SUPERSEDED_MS }
}

/** What a day's number is multiplied by in its compactions' numbers: above any time in ms until the year 2286. */
const DAY_FACTOR = 10n ** 13n

/**
 * A new compaction number for `day`: the day number since 1970-01-01 times 10^13 plus the clock in ms, so
 * that the number names its day (readers keep rows by number alone) and grows with each compaction of it.
 * In decimal text: it is beyond 2^53.
 */
const compactionNumber = (day: Date) => String(BigInt(day.getTime() / DAY_MS) * DAY_FACTOR + BigInt(Date.now()))

const dateText = (date: Date) => date.toISOString().slice(0, 10)

/** The statements of the engine's topology: one node, or the shards of its cluster. */
const sqlOf = (engine: Engine) => new CompactionSql(engine.settings.cluster)

/** The combined table whose rows built a compaction reports as its sessions. */
const SESSIONS_TABLE = combinedTable('sessions_settled')

/**
 * Builds a day of one table in its staging table, alone there, and adds those parts to the day's month
 * beside the day's older compactions. Returns the rows built. Before it attaches, the lease must still be its
 * own and every staged row the job's: a run that rewrote the staging table meanwhile would otherwise have its
 * rows recorded under this run's number.
 */
async function swapDay(engine: Engine, swap: SwapStatements, lease: Lease): Promise<number> {
  await engine.admin.command(swap.clear)
  await engine.admin.command(swap.build)
  const [{ rows, foreign_rows: foreign }] = await engine.admin.rows<{ rows: number | string; foreign_rows: number | string }>(swap.check)
  if (Number(foreign) > 0)
    throw new Error(`Compaction ${lease.holder}: ${swap.table.table}_stage holds rows of another job; it stops before attaching them`)
  if (Number(rows) === 0) return 0
  await keepsLease(engine, lease)
  if (swap.sync) await engine.admin.command(swap.sync)
  await engine.admin.command(swap.attach)
  return Number(rows)
}

/**
 * The share of a month's stored rows that, once masked by deletes, has the month rewritten without them.
 * Masked rows are read and skipped by every statement over the month until a merge includes their part,
 * and a month merged into one part is not merged again until a new part joins it; a recompaction of a few
 * days of an older month masks about a tenth (figures in docs/measurements.md).
 */
const MASKED_SHARE = 0.2

/**
 * Deletes every compaction of the combined tables that no reader can still be reading, then has each month of a
 * table whose masked rows reached MASKED_SHARE rewritten in the background; returns how many of each. A table
 * with a mutation still running (admin/compact-mutating.sql) keeps its replaced compactions until a later run.
 */
async function dropSuperseded(engine: Engine, run: RunConstants): Promise<Pick<CompactReport, 'dropped' | 'rewritten' | 'deferred'>> {
  const sql = sqlOf(engine)
  let dropped = 0
  let rewritten = 0
  let deferred = 0
  for (const table of sql.tables) {
    const [{ pending }] = await engine.admin.rows<{ pending: number | string }>(sql.mutating(table))
    if (Number(pending) > 0) {
      deferred += 1
      continue
    }
    const superseded = await engine.admin.rows<{ day: string; compaction: string }>(sql.superseded(table, run))
    if (superseded.length === 0) continue
    await engine.admin.command(sql.drop(table, superseded))
    dropped += superseded.length
    const masked = await engine.admin.rows<{ partition_id: string }>(sql.masked(table, MASKED_SHARE))
    for (const { partition_id: partition } of masked) await engine.admin.command(sql.unmask(table, partition))
    rewritten += masked.length
  }
  return { dropped, rewritten, deferred }
}

/** Builds and swaps in one day of every combined table; returns its sessions. */
export async function compactDay(engine: Engine, day: Date, lookbackMs: number, lease: Lease): Promise<number> {
  const sql = sqlOf(engine)
  // A compaction number that only grows; the count before the builds (see admin/compact-count.sql).
  const job: DayJob = {
    day: dateText(day),
    compaction: compactionNumber(day),
    readFrom: toClickHouseTime(new Date(day.getTime() - lookbackMs)),
    readTo: toClickHouseTime(new Date(day.getTime() + DAY_MS + lookbackMs)),
  }
  await renewLease(engine, lease)
  const counts = await engine.admin.rows<{ project_id: string; partial_rows: number | string }>(sql.count(job))
  let sessions = 0
  for (const swap of sql.swaps(job)) {
    const rows = await swapDay(engine, swap, lease)
    if (swap.table === SESSIONS_TABLE) sessions = rows
  }
  // Recorded only once every table holds the day: until then, readers regroup it.
  await keepsLease(engine, lease)
  await engine.admin.command(sql.record(job, Math.round(lookbackMs / 1000), counts, COMPACTION_DEFINITION))
  return sessions
}

/**
 * Compacts every settled day that changed, under the lease (another run's holder is reported instead). On a
 * cluster each shard settles its own sessions (server/admin/compaction-sql.ts).
 */
export async function compactSessions(engine: Engine, options: CompactOptions): Promise<CompactReport> {
  const started = performance.now()
  const idle = { days: 0, sessions: 0, dropped: 0, rewritten: 0, deferred: 0 }
  const claim = await claimLease(engine)
  if ('heldBy' in claim) return { ...idle, leaseHeldBy: claim.heldBy, seconds: (performance.now() - started) / 1000 }
  try {
    const lastDay = new Date(Math.floor((options.now.getTime() - options.lookbackMs) / DAY_MS) * DAY_MS - DAY_MS)
    const run: RunConstants = {
      lastDay: dateText(lastDay),
      lookbackSeconds: Math.round(options.lookbackMs / 1000),
      keepMs: options.keepSupersededMs,
      definition: COMPACTION_DEFINITION,
    }
    const stale = await engine.admin.rows<{ day: string }>(sqlOf(engine).staleDays(run))
    let sessions = 0
    for (const { day } of stale) sessions += await compactDay(engine, new Date(`${day}T00:00:00Z`), options.lookbackMs, claim.lease)
    const { dropped, rewritten, deferred } = await dropSuperseded(engine, run)
    return { days: stale.length, sessions, dropped, rewritten, deferred, seconds: (performance.now() - started) / 1000 }
  } finally {
    await releaseLease(engine, claim.lease)
  }
}

export interface CompactionTimer {
  stop(): Promise<void>
}

/**
 * Compacts now and then every `everyMs`, one run at a time (never when 0): a tick while a run is under way
 * is skipped, so runs never queue up behind a long one. A failed run is reported to `onError` and the next
 * tick tries again. `stop` waits for a run under way.
 */
export function scheduleCompaction(
  engine: Engine,
  options: Pick<CompactOptions, 'lookbackMs' | 'keepSupersededMs'> & {
    everyMs: number
    onRun(report: CompactReport): void
    onError(error: unknown): void
  },
): CompactionTimer {
  let running: Promise<void> | undefined
  const run = () => {
    if (running) return
    running = compactSessions(engine, { lookbackMs: options.lookbackMs, keepSupersededMs: options.keepSupersededMs, now: new Date() })
      .then(options.onRun, options.onError)
      .finally(() => {
        running = undefined
      })
  }
  if (options.everyMs) run()
  const timer = options.everyMs ? setInterval(run, options.everyMs) : undefined
  timer?.unref()
  return {
    async stop() {
      if (timer) clearInterval(timer)
      await running
    },
  }
}
