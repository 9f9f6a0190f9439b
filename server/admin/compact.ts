// Compaction of settled days (sql/migrations/005_settled_sessions.sql, 006_settled_page_views.sql,
// 008_page_rollup.sql, 017_session_rollup.sql): for each UTC day whose partial session rows changed since it
// was last compacted, build its sessions, its page views and the rollups of both combined, add each to its
// month beside the day's older compactions (014_settled_by_month.sql), then record what the builds saw;
// last, delete the compactions no reader can still be reading (013_compactions_by_number.sql) and have a
// month whose rows are largely such deleted ones rewritten. Runs on the engine's writable connection, one
// day at a time.
import { compileInner, compileTemplate, sqlOnly, withSettings, type CompiledQuery } from '../../queries/core/compiled'
import { BREAKDOWNS, COMPACTION_DEFINITION } from '../../queries/core/compaction-definition'
import { DAY_MS } from '../../queries/core/dates'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { MAX_EXECUTION_SECONDS_LIMIT, type Config } from '../config'
import type { Engine } from '../engine'
import { BACKGROUND_PRIORITY } from '../priorities'
import { claimLease, keepsLease, releaseLease, renewLease, type Lease } from './compaction-lease'

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

/**
 * A compaction statement that reads a day or a whole table, compiled once and run at BACKGROUND_PRIORITY: it
 * pauses while the gateway's questions run (server/priorities.ts).
 */
function background(file: string, fragments: Parameters<typeof compileTemplate>[2]): CompiledQuery {
  return withSettings(compileTemplate(file, {}, fragments), { priority: BACKGROUND_PRIORITY })
}

/**
 * The job under way as constants (admin/compaction-job.sql), in place of bound values: embedded, a statement
 * with bound parameters holds chDB's one process-wide chain of them while it runs, and a day's builds held
 * every data statement of the gateway behind them. `npm run bench -- compaction` (10M events, `country` every
 * 20 ms while 8 days are compacted, four rounds each way): p90 526-610 ms and p99 586-1,107 with the builds
 * bound, 196-349 and 276-751 with them reading the job.
 */
const JOB = compileInner('admin/compaction-job.sql', {})
/** The partial rows of the job's read range, per project (admin/compact-count.sql). */
const COUNT = background('admin/compact-count.sql', { job: JOB })

/**
 * The run under way as constants (admin/compaction-run.sql), in place of bound values, for its checks that read
 * a whole table and so grow with a project's history: on 40M events over 360 days, bound, the stale days held
 * the chain for 99 ms and the four tables' replaced compactions for 195 ms, every run; `country` asked beside
 * them took p90 91-92 ms with them bound and 64-66 reading the run (32 ms p50 without them; README).
 */
const RUN = compileInner('admin/compaction-run.sql', {})
/** The days whose partial rows changed since their last compaction (admin/compact-stale-days.sql). */
const STALE_DAYS = background('admin/compact-stale-days.sql', { run: RUN })

type CombinedTable = 'sessions_settled' | 'page_views_settled' | 'page_rollup' | 'session_rollup'

/** A combined table a compaction builds for a day (a closed set: these four), in its staging table first. */
interface SettledTable {
  table: CombinedTable
  stage: `${CombinedTable}_stage`
  /** The statement that builds the job's day in the staging table, from its read range or its page rows. */
  build: CompiledQuery
  swap: string
  /** The table's compactions no reader can still be reading (admin/compact-superseded.sql). */
  findSuperseded: CompiledQuery
}

/** A combined table with its staging table and its check of replaced compactions; `build` and `swap` are its own. */
function settledTable(table: CombinedTable, build: CompiledQuery, swap: string): SettledTable {
  const findSuperseded = background('admin/compact-superseded.sql', { run: RUN, table: sqlOnly(table) })
  return { table, stage: `${table}_stage`, build, swap, findSuperseded }
}

const SESSIONS_SETTLED = settledTable('sessions_settled', background('admin/compact-build.sql', { job: JOB }), 'admin/compact-swap.sql')
const PAGE_VIEWS_SETTLED = settledTable('page_views_settled', background('admin/compact-views-build.sql', { job: JOB }), 'admin/compact-views-swap.sql')
/** Built from the page rows still in their staging table, so after them. */
const PAGE_ROLLUP = settledTable('page_rollup', background('admin/compact-rollup-build.sql', { job: JOB }), 'admin/compact-rollup-swap.sql')

/** Built from the sessions still in their staging table, so after them. */
const SESSION_ROLLUP = settledTable(
  'session_rollup',
  background('admin/compact-session-rollup-build.sql', { job: JOB, breakdowns: BREAKDOWNS }),
  'admin/compact-session-rollup-swap.sql',
)

/** The partition of a day in the combined tables and their staging tables: its month, as YYYYMM. */
const monthOf = (day: string) => Number(day.slice(0, 4) + day.slice(5, 7))

/** A day's compaction: its day (YYYY-MM-DD), its number, and the lease it runs under. */
interface DayJob {
  day: string
  compaction: string
  lease: Lease
}

/**
 * Stops unless the job row is still `job`'s own: the builds read it, and a run that rewrote it meanwhile
 * would have this one attach or record rows built for another day or number.
 */
async function keepsJob(engine: Engine, job: DayJob): Promise<void> {
  const [{ jobs, own }] = await engine.admin.rows<{ jobs: number | string; own: number | string }>(
    compileTemplate('admin/compact-job-check.sql', { day: job.day, compaction: job.compaction }),
  )
  if (Number(jobs) !== 1 || Number(own) !== 1) throw new Error(`Compaction ${job.lease.holder}: the job of ${job.day} is no longer its own; it stops before attaching or recording anything`)
}

/**
 * Builds the job's day of one table in its staging table, alone there, and adds those parts to the day's
 * month beside the day's older compactions. Returns the rows built.
 */
async function swapDay(engine: Engine, target: SettledTable, job: DayJob): Promise<number> {
  await engine.admin.command(compileTemplate('admin/compact-stage-clear.sql', { stage: target.stage }))
  await engine.admin.command(target.build)
  const staged = compileTemplate('admin/compact-stage-check.sql', { stage: target.stage, day: job.day, compaction: job.compaction })
  const [{ rows, foreign_rows: foreign }] = await engine.admin.rows<{ rows: number | string; foreign_rows: number | string }>(staged)
  if (Number(foreign) > 0) throw new Error(`Compaction ${job.lease.holder}: ${target.stage} holds rows of another job; it stops before attaching them`)
  if (Number(rows) === 0) return 0
  await keepsLease(engine, job.lease)
  await keepsJob(engine, job)
  await engine.admin.command(compileTemplate(target.swap, { month: monthOf(job.day) }))
  return Number(rows)
}

/**
 * The share of a month's stored rows that, once masked by deletes, has the month rewritten without them.
 * Masked rows are read and skipped by every statement over the month until a merge includes their part,
 * and a month merged into one part is not merged again until a new part joins it. On 10M events, every day
 * compacted again (as after migration 017) and merged, then the replaced compactions dropped: 30-day
 * metrics took 115 ms with half of each month masked and 102 ms once rewritten (medians of 15; the four
 * tables' three months rewritten in 9.3 s). A recompaction of a few days of an older month masks a tenth.
 */
const MASKED_SHARE = 0.2

/**
 * Deletes every compaction of the four tables that no reader can still be reading, then has each month of a
 * table whose masked rows reached MASKED_SHARE rewritten in the background; returns how many of each. A table
 * with a mutation still running (admin/compact-mutating.sql) keeps its replaced compactions until a later run.
 */
async function dropSuperseded(engine: Engine): Promise<Pick<CompactReport, 'dropped' | 'rewritten' | 'deferred'>> {
  let dropped = 0
  let rewritten = 0
  let deferred = 0
  for (const { table, findSuperseded } of [SESSIONS_SETTLED, PAGE_VIEWS_SETTLED, PAGE_ROLLUP, SESSION_ROLLUP]) {
    const [{ pending }] = await engine.admin.rows<{ pending: number | string }>(compileTemplate('admin/compact-mutating.sql', { tableName: table }))
    if (Number(pending) > 0) {
      deferred += 1
      continue
    }
    const superseded = await engine.admin.rows<{ day: string; compaction: string }>(findSuperseded)
    if (superseded.length === 0) continue
    const days = [...new Set(superseded.map((entry) => entry.day))]
    await engine.admin.command(compileTemplate('admin/compact-drop.sql', { table, days, compactions: superseded.map((entry) => entry.compaction) }))
    dropped += superseded.length
    const masked = await engine.admin.rows<{ partition_id: string }>(compileTemplate('admin/compact-masked.sql', { table, tableName: table, share: MASKED_SHARE }))
    for (const { partition_id: partition } of masked) await engine.admin.command(compileTemplate('admin/compact-unmask.sql', { table, partition }))
    rewritten += masked.length
  }
  return { dropped, rewritten, deferred }
}

/** Builds and swaps in one day's sessions, page views and the rollups of both; returns its sessions. */
export async function compactDay(engine: Engine, day: Date, lookbackMs: number, lease: Lease): Promise<number> {
  const range = { readFrom: toClickHouseTime(new Date(day.getTime() - lookbackMs)), readTo: toClickHouseTime(new Date(day.getTime() + DAY_MS + lookbackMs)) }
  // A compaction number that only grows, then the job its statements read, then the count (see admin/compact-count.sql).
  const job: DayJob = { day: dateText(day), compaction: compactionNumber(day), lease }
  await renewLease(engine, lease)
  await engine.admin.command(compileTemplate('admin/compact-job-clear.sql', {}))
  await engine.admin.command(compileTemplate('admin/compact-job.sql', { ...range, day: job.day, compaction: job.compaction }))
  const counts = await engine.admin.rows<{ project_id: string; partial_rows: number | string }>(COUNT)
  const sessions = await swapDay(engine, SESSIONS_SETTLED, job)
  await swapDay(engine, PAGE_VIEWS_SETTLED, job)
  await swapDay(engine, PAGE_ROLLUP, job)
  await swapDay(engine, SESSION_ROLLUP, job)
  // Recorded only once every table holds the day: until then, readers regroup it.
  await keepsLease(engine, lease)
  await keepsJob(engine, job)
  await engine.admin.command(
    compileTemplate('admin/compact-record.sql', {
      day: job.day,
      compaction: job.compaction,
      lookbackSeconds: Math.round(lookbackMs / 1000),
      projects: counts.map((row) => row.project_id),
      partialRows: counts.map((row) => Number(row.partial_rows)),
      definition: COMPACTION_DEFINITION,
    }),
  )
  return sessions
}

/**
 * Compacts every settled day that changed, under the lease (another run's holder is reported instead). On a
 * cluster it does nothing: the staging table and the partition attach are per node, so readers there
 * regroup partial rows for every day (still exact).
 */
export async function compactSessions(engine: Engine, options: CompactOptions): Promise<CompactReport> {
  const started = performance.now()
  const idle = { days: 0, sessions: 0, dropped: 0, rewritten: 0, deferred: 0 }
  if (engine.settings.cluster) return { ...idle, seconds: 0 }
  const claim = await claimLease(engine)
  if ('heldBy' in claim) return { ...idle, leaseHeldBy: claim.heldBy, seconds: (performance.now() - started) / 1000 }
  try {
    const lastDay = new Date(Math.floor((options.now.getTime() - options.lookbackMs) / DAY_MS) * DAY_MS - DAY_MS)
    // The run its checks read (admin/compaction-run.sql), before the first of them.
    await engine.admin.command(compileTemplate('admin/compact-run-clear.sql', {}))
    await engine.admin.command(
      compileTemplate('admin/compact-run.sql', {
        lastDay: dateText(lastDay),
        lookbackSeconds: Math.round(options.lookbackMs / 1000),
        keepMs: options.keepSupersededMs,
        definition: COMPACTION_DEFINITION,
      }),
    )
    const stale = await engine.admin.rows<{ day: string }>(STALE_DAYS)
    let sessions = 0
    for (const { day } of stale) sessions += await compactDay(engine, new Date(`${day}T00:00:00Z`), options.lookbackMs, claim.lease)
    const { dropped, rewritten, deferred } = await dropSuperseded(engine)
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
  options: Pick<CompactOptions, 'lookbackMs' | 'keepSupersededMs'> & { everyMs: number; onRun(report: CompactReport): void; onError(error: unknown): void },
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
