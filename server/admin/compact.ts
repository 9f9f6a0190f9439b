// Compaction of settled sessions (sql/migrations/005_settled_sessions.sql): for each UTC day whose partial
// session rows changed since it was last compacted, build its sessions combined and swap them in whole,
// then record what the build saw. Runs on the engine's writable connection, one day at a time.
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

/** Builds and swaps in one day; returns its sessions. */
async function compactDay(engine: Engine, day: Date, lookbackMs: number): Promise<number> {
  const range = { readFrom: toClickHouseTime(new Date(day.getTime() - lookbackMs)), readTo: toClickHouseTime(new Date(day.getTime() + DAY_MS + lookbackMs)) }
  const dayText = dateText(day)
  // Counted first (see admin/compact-count.sql), and a compaction number that only grows.
  const counts = await engine.admin.rows<{ project_id: string; partial_rows: number | string }>(compileTemplate('admin/compact-count.sql', range))
  const compaction = Date.now()
  await engine.admin.command(compileTemplate('admin/compact-stage-clear.sql', {}))
  await engine.admin.command(compileTemplate('admin/compact-build.sql', { ...range, day: dayText, compaction }))
  const [{ sessions }] = await engine.admin.rows<{ sessions: number | string }>(compileTemplate('admin/compact-stage-rows.sql', {}))
  const swap = Number(sessions) > 0 ? 'admin/compact-swap.sql' : 'admin/compact-drop.sql'
  await engine.admin.command(compileTemplate(swap, { day: dayText }))
  await engine.admin.command(
    compileTemplate('admin/compact-record.sql', {
      day: dayText,
      compaction,
      lookbackSeconds: Math.round(lookbackMs / 1000),
      projects: counts.map((row) => row.project_id),
      partialRows: counts.map((row) => Number(row.partial_rows)),
    }),
  )
  return Number(sessions)
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
