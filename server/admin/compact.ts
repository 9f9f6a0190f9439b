// Compaction of settled days (sql/migrations/005_settled_sessions.sql, 006_settled_page_views.sql): for
// each UTC day whose partial session rows changed since it was last compacted, build its sessions and its
// page views combined, swap each in whole, then record what the builds saw. Runs on the engine's writable connection, one day at a time.
import { compileTemplate } from '../../queries/core/compiled'
import { toClickHouseTime } from '../../queries/core/pipeline'
import type { Engine } from '../engine'

const DAY_MS = 86_400_000

export interface CompactOptions {
  /** How far sessions reach past their start (QUARRY_SESSION_LOOKBACK_HOURS), in ms. */
  lookbackMs: number
  /** Only days whose read range ended before this are compacted: the open edge is left to the readers. */
  now: Date
}

export interface CompactReport {
  days: number
  sessions: number
  seconds: number
}

const dateText = (date: Date) => date.toISOString().slice(0, 10)

/** The combined tables a compaction builds for a day: each built in its staging table, then swapped in whole. */
const SETTLED_TABLES = [
  { clear: 'admin/compact-stage-clear.sql', build: 'admin/compact-build.sql', rows: 'admin/compact-stage-rows.sql', swap: 'admin/compact-swap.sql', drop: 'admin/compact-drop.sql' },
  { clear: 'admin/compact-views-stage-clear.sql', build: 'admin/compact-views-build.sql', rows: 'admin/compact-views-stage-rows.sql', swap: 'admin/compact-views-swap.sql', drop: 'admin/compact-views-drop.sql' },
] as const

/** Builds and swaps in one day's sessions and page views; returns its sessions. */
async function compactDay(engine: Engine, day: Date, lookbackMs: number): Promise<number> {
  const range = { readFrom: toClickHouseTime(new Date(day.getTime() - lookbackMs)), readTo: toClickHouseTime(new Date(day.getTime() + DAY_MS + lookbackMs)) }
  const dayText = dateText(day)
  // Counted first (see admin/compact-count.sql), and a compaction number that only grows.
  const counts = await engine.admin.rows<{ project_id: string; partial_rows: number | string }>(compileTemplate('admin/compact-count.sql', range))
  const compaction = Date.now()
  const built: number[] = []
  for (const table of SETTLED_TABLES) {
    await engine.admin.command(compileTemplate(table.clear, {}))
    await engine.admin.command(compileTemplate(table.build, { ...range, day: dayText, compaction }))
    const [{ rows }] = await engine.admin.rows<{ rows: number | string }>(compileTemplate(table.rows, {}))
    await engine.admin.command(compileTemplate(Number(rows) > 0 ? table.swap : table.drop, { day: dayText }))
    built.push(Number(rows))
  }
  // Recorded only once both tables hold the day: until then, readers regroup it.
  await engine.admin.command(
    compileTemplate('admin/compact-record.sql', {
      day: dayText,
      compaction,
      lookbackSeconds: Math.round(lookbackMs / 1000),
      projects: counts.map((row) => row.project_id),
      partialRows: counts.map((row) => Number(row.partial_rows)),
    }),
  )
  return built[0]
}

/**
 * Compacts every settled day that changed. On a cluster it does nothing: the staging table and the
 * partition swap are per node, so readers there regroup partial rows for every day (still exact).
 */
export async function compactSessions(engine: Engine, options: CompactOptions): Promise<CompactReport> {
  const started = performance.now()
  if (engine.settings.cluster) return { days: 0, sessions: 0, seconds: 0 }
  const lastDay = new Date(Math.floor((options.now.getTime() - options.lookbackMs) / DAY_MS) * DAY_MS - DAY_MS)
  const stale = await engine.admin.rows<{ day: string }>(
    compileTemplate('admin/compact-stale-days.sql', { lookbackSeconds: Math.round(options.lookbackMs / 1000), lastDay: dateText(lastDay) }),
  )
  let sessions = 0
  for (const { day } of stale) sessions += await compactDay(engine, new Date(`${day}T00:00:00Z`), options.lookbackMs)
  return { days: stale.length, sessions, seconds: (performance.now() - started) / 1000 }
}

export interface CompactionTimer {
  stop(): Promise<void>
}

/**
 * Compacts now and then every `everyMs`, one run at a time (never when 0); a failed run is reported to
 * `onError` and the next one tries again. `stop` waits for a run under way.
 */
export function scheduleCompaction(engine: Engine, options: { lookbackMs: number; everyMs: number; onRun(report: CompactReport): void; onError(error: unknown): void }): CompactionTimer {
  let running: Promise<void> = Promise.resolve()
  let stopped = false
  const run = () => {
    running = compactSessions(engine, { lookbackMs: options.lookbackMs, now: new Date() }).then(options.onRun, options.onError)
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
