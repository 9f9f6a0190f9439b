// Compaction of settled days (sql/migrations/005_settled_sessions.sql, 006_settled_page_views.sql,
// 008_page_rollup.sql, 017_session_rollup.sql): for each UTC day whose partial session rows changed since it
// was last compacted, build its sessions, its page views and the rollups of both combined, add each to its
// month beside the day's older compactions (014_settled_by_month.sql), then record what the builds saw;
// last, delete the compactions no reader can still be reading (013_compactions_by_number.sql) and have a
// month whose rows are largely such deleted ones rewritten. Runs on the engine's writable connection, one
// day at a time.
import crypto from 'node:crypto'
import { compileInner, compileTemplate, sqlOnly, type CompiledQuery } from '../../queries/core/compiled'
import { DIMENSIONS, breakdownSql, type Dimension } from '../../queries/core/registry'
import { DAY_MS } from '../../queries/core/dates'
import { toClickHouseTime } from '../../queries/core/pipeline'
import type { Config } from '../config'
import type { Engine } from '../engine'
import { BACKGROUND_PRIORITY } from '../priorities'

export interface CompactOptions {
  /** How far sessions reach past their start (QUARRY_SESSION_LOOKBACK_HOURS), in ms. */
  lookbackMs: number
  /** Only days whose read range ended before this are compacted: the open edge is left to the readers. */
  now: Date
  /**
   * How long a compaction that a newer one replaced is kept after that one was recorded: longer than a
   * settled check's rows naming it are reused plus a statement that read them may run (`compactionOptions`,
   * queries/core/settled-check.ts).
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
  /** Set when another compaction held the lease (admin/compact-lease-holder.sql), so this one did nothing. */
  leaseHeldBy?: string
  seconds: number
}

/**
 * A process's compaction settings from its configuration: its session lookback, and a replaced compaction
 * kept for twice the longest a statement may run (QUARRY_MAX_EXECUTION_SECONDS): a gateway reuses a
 * settled check's rows for at most that long, and a statement bound with them runs at most that long.
 */
export function compactionOptions(config: Pick<Config, 'sessionLookbackHours' | 'maxExecutionSeconds'>): Pick<CompactOptions, 'lookbackMs' | 'keepSupersededMs'> {
  return { lookbackMs: config.sessionLookbackHours * 3_600_000, keepSupersededMs: 2 * config.maxExecutionSeconds * 1000 }
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
  const query = compileTemplate(file, {}, fragments)
  return Object.freeze({ ...query, sql: `${query.sql}\nSETTINGS priority = ${BACKGROUND_PRIORITY}` })
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

/** Each breakdown of the registry as (name, prefix column or '', column) over sessions_settled's `s_` columns. */
const BREAKDOWNS = sqlOnly(
  (Object.keys(DIMENSIONS) as Dimension[])
    .map(breakdownSql)
    .map(({ name, prefix, value }) => `(${name}, ${prefix}, ${value})`)
    .join(', '),
)
/** Built from the sessions still in their staging table, so after them. */
const SESSION_ROLLUP = settledTable(
  'session_rollup',
  background('admin/compact-session-rollup-build.sql', { job: JOB, breakdowns: BREAKDOWNS }),
  'admin/compact-session-rollup-swap.sql',
)

/** The partition of a day in the combined tables and their staging tables: its month, as YYYYMM. */
const monthOf = (day: string) => Number(day.slice(0, 4) + day.slice(5, 7))

/**
 * How long a compaction's lease rows count (migrations/019_compaction_lease.sql): the holder adds one for each
 * day, so only a day longer than this, or a holder that died, lets another compaction in.
 */
const LEASE_SECONDS = 3_600

/** This process's prefix of its runs' lease ids: embedded, the runs of any other process died with it. */
export const LEASE_PROCESS = `${crypto.randomUUID()}:`

/** The compaction holding the lease, if any. */
async function leaseHolder(engine: Engine): Promise<string | undefined> {
  const [row] = await engine.admin.rows<{ holder: string }>(compileTemplate('admin/compact-lease-holder.sql', { leaseSeconds: LEASE_SECONDS }))
  return row?.holder
}

/** Before a step that others must not see half done (an attach, a record): stops unless `holder` still holds the lease. */
async function keepsLease(engine: Engine, holder: string): Promise<void> {
  const current = await leaseHolder(engine)
  if (current !== holder) throw new Error(`Compaction ${holder} lost its lease to ${current ?? 'nobody'}; it stops before attaching or recording anything more`)
}

/**
 * Builds the job's day of one table in its staging table, alone there, and adds those parts to the day's
 * month beside the day's older compactions. Returns the rows built.
 */
async function swapDay(engine: Engine, target: SettledTable, day: string, holder: string): Promise<number> {
  await engine.admin.command(compileTemplate('admin/compact-stage-clear.sql', { stage: target.stage }))
  await engine.admin.command(target.build)
  const [{ rows }] = await engine.admin.rows<{ rows: number | string }>(compileTemplate('admin/compact-stage-rows.sql', { stage: target.stage }))
  if (Number(rows) === 0) return 0
  await keepsLease(engine, holder)
  await engine.admin.command(compileTemplate(target.swap, { month: monthOf(day) }))
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
async function compactDay(engine: Engine, day: Date, lookbackMs: number, holder: string): Promise<number> {
  const range = { readFrom: toClickHouseTime(new Date(day.getTime() - lookbackMs)), readTo: toClickHouseTime(new Date(day.getTime() + DAY_MS + lookbackMs)) }
  const dayText = dateText(day)
  // A compaction number that only grows, then the job its statements read, then the count (see admin/compact-count.sql).
  const compaction = compactionNumber(day)
  await engine.admin.command(compileTemplate('admin/compact-lease-take.sql', { holder }))
  await engine.admin.command(compileTemplate('admin/compact-job-clear.sql', {}))
  await engine.admin.command(compileTemplate('admin/compact-job.sql', { ...range, day: dayText, compaction }))
  const counts = await engine.admin.rows<{ project_id: string; partial_rows: number | string }>(COUNT)
  const sessions = await swapDay(engine, SESSIONS_SETTLED, dayText, holder)
  await swapDay(engine, PAGE_VIEWS_SETTLED, dayText, holder)
  await swapDay(engine, PAGE_ROLLUP, dayText, holder)
  await swapDay(engine, SESSION_ROLLUP, dayText, holder)
  // Recorded only once every table holds the day: until then, readers regroup it.
  await keepsLease(engine, holder)
  await engine.admin.command(
    compileTemplate('admin/compact-record.sql', {
      day: dayText,
      compaction,
      lookbackSeconds: Math.round(lookbackMs / 1000),
      projects: counts.map((row) => row.project_id),
      partialRows: counts.map((row) => Number(row.partial_rows)),
    }),
  )
  return sessions
}

/**
 * Compacts every settled day that changed. On a cluster it does nothing: the staging table and the
 * partition attach are per node, so readers there regroup partial rows for every day (still exact).
 */
export async function compactSessions(engine: Engine, options: CompactOptions): Promise<CompactReport> {
  const started = performance.now()
  const idle = { days: 0, sessions: 0, dropped: 0, rewritten: 0, deferred: 0 }
  if (engine.settings.cluster) return { ...idle, seconds: 0 }
  const holder = `${LEASE_PROCESS}${crypto.randomUUID()}`
  // TRICKY: a gateway killed during a run leaves its lease rows behind, and they would hold the next process
  // off for the lease time; embedded, no other process can be running.
  if (engine.settings.mode === 'embedded') await engine.admin.command(compileTemplate('admin/compact-lease-release-others.sql', { process: LEASE_PROCESS }))
  await engine.admin.command(compileTemplate('admin/compact-lease-take.sql', { holder }))
  try {
    const holding = await leaseHolder(engine)
    if (holding !== holder) return { ...idle, leaseHeldBy: holding ?? 'none', seconds: (performance.now() - started) / 1000 }
    const lastDay = new Date(Math.floor((options.now.getTime() - options.lookbackMs) / DAY_MS) * DAY_MS - DAY_MS)
    // The run its checks read (admin/compaction-run.sql), before the first of them.
    await engine.admin.command(compileTemplate('admin/compact-run-clear.sql', {}))
    await engine.admin.command(
      compileTemplate('admin/compact-run.sql', { lastDay: dateText(lastDay), lookbackSeconds: Math.round(options.lookbackMs / 1000), keepMs: options.keepSupersededMs }),
    )
    const stale = await engine.admin.rows<{ day: string }>(STALE_DAYS)
    let sessions = 0
    for (const { day } of stale) sessions += await compactDay(engine, new Date(`${day}T00:00:00Z`), options.lookbackMs, holder)
    const { dropped, rewritten, deferred } = await dropSuperseded(engine)
    return { days: stale.length, sessions, dropped, rewritten, deferred, seconds: (performance.now() - started) / 1000 }
  } finally {
    await engine.admin.command(compileTemplate('admin/compact-lease-release.sql', { holder }))
  }
}

export interface CompactionTimer {
  stop(): Promise<void>
}

/**
 * Compacts now and then every `everyMs`, one run at a time (never when 0); a failed run is reported to
 * `onError` and the next one tries again. `stop` waits for a run under way.
 */
export function scheduleCompaction(
  engine: Engine,
  options: Pick<CompactOptions, 'lookbackMs' | 'keepSupersededMs'> & { everyMs: number; onRun(report: CompactReport): void; onError(error: unknown): void },
): CompactionTimer {
  let running: Promise<void> = Promise.resolve()
  let stopped = false
  const run = () => {
    running = compactSessions(engine, { lookbackMs: options.lookbackMs, keepSupersededMs: options.keepSupersededMs, now: new Date() }).then(options.onRun, options.onError)
  }
  if (options.everyMs) run()
  const timer = options.everyMs ? setInterval(() => void running.then(() => (stopped ? undefined : run())), options.everyMs) : undefined
  timer?.unref()
  return {
    async stop() {
      stopped = true
      if (timer) clearInterval(timer)
      await running
    },
  }
}
