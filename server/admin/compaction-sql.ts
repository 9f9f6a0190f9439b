// The statements of a compaction, rendered for where it runs: one node, or the shards of a cluster. Every
// one carries its values as typed literals (queries/core/literals.ts) and binds nothing.
// On a cluster (CLICKHOUSE_CLUSTER) each shard settles its own sessions: `sessions`, `events` and the
// combined tables' staging tables are sharded by session (the migrations' Distributed tables over `_local`
// ones), so every partial row and event of a session lies on one shard. A build inserts into the Distributed
// staging table from the Distributed sources with `parallel_distributed_insert_select = 2`, which the engine
// runs on each shard from and into its local tables when the select reads one Distributed table (the two
// rollups); the sessions and page-view builds, whose selects join or order by window, run through the node
// asked, and the Distributed insert sends each row to the shard of its session (synchronously:
// `distributed_foreground_insert = 1`). The stage is then synced on every replica, attached ON CLUSTER (once
// per shard, to the rows staged there), and the day recorded once for the cluster: the one compaction number
// names the day's rows on every shard, and the count it records is the cluster's.
import {
  compileInner,
  compileTemplate,
  sqlOnly,
  withSettings,
  type CompiledQuery,
  type Fragment,
  type Params,
  type Settings,
} from '../../queries/core/compiled'
import { inlineParams, stringLiteral } from '../../queries/core/literals'
import { COMBINED_TABLES, type CombinedTable } from '../../queries/sessions/combined-tables'
import { BUILD_INPUTS } from '../../queries/sessions/definition'
import { BACKGROUND_PRIORITY } from '../priorities'

/** A day's compaction: its day (YYYY-MM-DD), its number (decimal text) and its read range. */
export interface DayJob {
  day: string
  compaction: string
  readFrom: string
  readTo: string
}

/** A run's constants: the last day it may compact, its lookback, the keep time of replaced compactions, its definition. */
export interface RunConstants {
  lastDay: string
  lookbackSeconds: number
  keepMs: number
  definition: string
}

/** The settings a build's INSERT ... SELECT runs with on a cluster (see the header). */
export const CLUSTER_BUILD_SETTINGS: Settings = { parallel_distributed_insert_select: 2, distributed_foreground_insert: 1 }

/** The partition of a day in the combined tables and their staging tables: its month, as YYYYMM. */
export const monthOf = (day: string): number => Number(day.slice(0, 4) + day.slice(5, 7))

/** The statements that swap in a day of one combined table, in the order they run (`sync` only on a cluster). */
export interface SwapStatements {
  table: CombinedTable
  clear: CompiledQuery
  build: CompiledQuery
  check: CompiledQuery
  sync?: CompiledQuery
  attach: CompiledQuery
}

/** The statements of compactions on one node or on `cluster`'s shards, for each of `tables` (the declared ones). */
export class CompactionSql {
  constructor(
    readonly cluster?: string,
    readonly tables: readonly CombinedTable[] = COMBINED_TABLES,
  ) {}

  /** The table whose parts hold `table`'s rows: on a cluster, the shards' local one. */
  private local(table: string): string {
    return this.cluster ? `${table}_local` : table
  }

  private get onCluster(): Fragment {
    return sqlOnly(this.cluster ? `ON CLUSTER ${stringLiteral(this.cluster)}` : '')
  }

  /** A statement with its values as typed literals, and the settings it runs with (sent with it, never spliced into its text). */
  private statement(file: string, params: Params, fragments: Record<string, Fragment> = {}, settings: Settings = {}): CompiledQuery {
    const query = inlineParams(compileTemplate(file, params, fragments))
    return Object.keys(settings).length ? withSettings(query, settings) : query
  }

  /** A statement that reads a day's range or a whole table: at BACKGROUND_PRIORITY, it pauses while questions run. */
  private background(file: string, params: Params, fragments: Record<string, Fragment> = {}, settings: Settings = {}): CompiledQuery {
    return this.statement(file, params, fragments, { ...settings, priority: BACKGROUND_PRIORITY })
  }

  private jobOf(job: DayJob): { params: Params; fragments: Record<string, Fragment> } {
    const params = { day: job.day, compaction: job.compaction, readFrom: job.readFrom, readTo: job.readTo }
    return { params, fragments: { job: compileInner('admin/compaction-job.sql', params) } }
  }

  private runOf(run: RunConstants): { params: Params; fragments: Record<string, Fragment> } {
    const params = { lastDay: run.lastDay, lookbackSeconds: run.lookbackSeconds, keepMs: run.keepMs, definition: run.definition }
    return { params, fragments: { run: compileInner('admin/compaction-run.sql', params) } }
  }

  /** Inserts into a Distributed table are sent on synchronously, so that the next statement sees them. */
  private get insertSettings(): Settings {
    return this.cluster ? { distributed_foreground_insert: 1 } : {}
  }

  /** The days whose partial rows changed since their last compaction under the run's definition. */
  staleDays(run: RunConstants): CompiledQuery {
    const { params, fragments } = this.runOf(run)
    return this.background('admin/compact-stale-days.sql', params, fragments)
  }

  /** The compactions of `table` no reader can still be reading. */
  superseded({ table }: CombinedTable, run: RunConstants): CompiledQuery {
    const { params, fragments } = this.runOf(run)
    return this.background('admin/compact-superseded.sql', params, { ...fragments, table: sqlOnly(table) })
  }

  /** The partial rows of the job's read range, per project (the cluster's, summed over its shards). */
  count(job: DayJob): CompiledQuery {
    const { params, fragments } = this.jobOf(job)
    return this.background('admin/compact-count.sql', params, fragments)
  }

  /** A day's swap of every table, in the declaration's order: each rollup reads the staged rows built before it. */
  swaps(job: DayJob): SwapStatements[] {
    return this.tables.map((table) => ({
      table,
      clear: this.clearStage(table),
      build: this.build(table, job),
      check: this.stageCheck(table, job),
      sync: this.syncStage(table),
      attach: this.attach(table, job.day),
    }))
  }

  clearStage({ table }: CombinedTable): CompiledQuery {
    return this.statement('admin/compact-stage-clear.sql', { stage: this.local(`${table}_stage`) }, { on_cluster: this.onCluster })
  }

  /** The table's build template, filled with its fragments made from this gateway's build inputs. */
  build({ build }: CombinedTable, job: DayJob): CompiledQuery {
    const { params, fragments } = this.jobOf(job)
    return this.background(
      build.template,
      params,
      { ...fragments, ...build.fragments?.(BUILD_INPUTS) },
      this.cluster ? CLUSTER_BUILD_SETTINGS : {},
    )
  }

  /** The staged rows, and those not of the job (read through the Distributed staging table on a cluster). */
  stageCheck({ table }: CombinedTable, job: DayJob): CompiledQuery {
    return this.statement('admin/compact-stage-check.sql', { stage: `${table}_stage`, day: job.day, compaction: job.compaction })
  }

  /** On a cluster, every replica of the local staging table fetches what its shard staged; nothing on one node. */
  syncStage({ table }: CombinedTable): CompiledQuery | undefined {
    return this.cluster
      ? this.statement('admin/compact-stage-sync.sql', { stage: this.local(`${table}_stage`) }, { on_cluster: this.onCluster })
      : undefined
  }

  attach({ table }: CombinedTable, day: string): CompiledQuery {
    return this.statement(
      'admin/compact-attach.sql',
      { table: this.local(table), month: monthOf(day), stage: this.local(`${table}_stage`) },
      { on_cluster: this.onCluster },
    )
  }

  /** What the day's compaction saw, per project, under `definition`: recorded once every table holds the day. */
  record(
    job: DayJob,
    lookbackSeconds: number,
    counts: { project_id: string; partial_rows: number | string }[],
    definition: string,
  ): CompiledQuery {
    const params = {
      day: job.day,
      compaction: job.compaction,
      lookbackSeconds,
      projects: counts.map((row) => row.project_id),
      partialRows: counts.map((row) => String(row.partial_rows)),
      definition,
    }
    return this.statement('admin/compact-record.sql', params, {}, this.insertSettings)
  }

  /** How many mutations of `table` are still running (on any replica, on a cluster). */
  mutating({ table }: CombinedTable): CompiledQuery {
    const mutations = this.cluster ? `clusterAllReplicas(${stringLiteral(this.cluster)}, system.mutations)` : 'system.mutations'
    return this.statement('admin/compact-mutating.sql', { tableName: this.local(table) }, { mutations: sqlOnly(mutations) })
  }

  drop({ table }: CombinedTable, superseded: { day: string; compaction: string }[]): CompiledQuery {
    const days = [...new Set(superseded.map((entry) => entry.day))]
    const params = { table: this.local(table), days, compactions: superseded.map((entry) => entry.compaction) }
    return this.statement('admin/compact-drop.sql', params, { on_cluster: this.onCluster })
  }

  /** The months of `table` whose masked rows reached `share` of its stored rows. */
  masked({ table }: CombinedTable, share: number): CompiledQuery {
    const parts = this.cluster ? `cluster(${stringLiteral(this.cluster)}, system.parts)` : 'system.parts'
    return this.statement('admin/compact-masked.sql', { table, tableName: this.local(table), share }, { parts: sqlOnly(parts) })
  }

  unmask({ table }: CombinedTable, partition: string): CompiledQuery {
    return this.statement('admin/compact-unmask.sql', { table: this.local(table), partition }, { on_cluster: this.onCluster })
  }
}
