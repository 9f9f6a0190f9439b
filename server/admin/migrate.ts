// Applies sql/migrations/*.sql in order, each once, tracked in `quarry_migrations`; safe to rerun. The first
// two are the baseline: 001_source_tables (events, sessions and its view, profiles, projects, clients) and
// 002_derived_tables (what the compaction builds from them), recorded with the version of its rendered text:
// when that changes, the derived tables are dropped and created anew (and rebuilt by the compaction). A
// directory from before the baseline is upgraded the same way when it had every earlier migration, and
// refused otherwise, with how to re-import it (`LEGACY_MIGRATIONS`). It runs
// on the engine's admin connection (CLICKHOUSE_ADMIN_USER on a server), never on the read-only serving lanes.
// Embedded, the process that opens the data directory migrates it (it alone holds the directory's lock). On
// a server, migrating is a one-shot step (`npm run cli -- migrate`, the container's migrate service): replicas
// starting together would race on a migration's DROP and RENAME, so a gateway or a CLI command only checks
// that every migration is applied, and refuses to start otherwise.
// The files carry markers so one text serves a single node and a cluster (Replicated + Distributed).
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { compileTemplate } from '../../queries/core/compiled'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { combinedFieldColumns, partialFieldColumns, partialRowSelect } from '../../queries/sessions/session-fields'
import type { Engine } from '../engine'

const MIGRATIONS_DIR = path.join(__dirname, '..', '..', 'sql', 'migrations')

export interface Topology {
  cluster?: string
  database: string
}

const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

function replicated(engine: string, zkPath: string): string {
  const match = /^(\w+)\((.*)\)$/.exec(engine.trim())
  if (!match) throw new Error(`Migration engine marker needs the form Name(args): ${engine}`)
  const [, name, args] = match
  const all = [quote(zkPath), quote('{replica}'), ...(args.trim() ? [args.trim()] : [])]
  return `Replicated${name}(${all.join(', ')})`
}

/** What `{{session_fields <part>}}` renders from the registry's one list of session fields. */
const SESSION_FIELD_PARTS: Record<string, () => string> = {
  partial_columns: () => partialFieldColumns(),
  partial_select: () => partialRowSelect(),
  combined_columns: () => combinedFieldColumns(),
}

/** Renders one migration's text for the topology and splits it into statements. */
export function renderMigration(text: string, topology: Topology): string[] {
  const { cluster, database } = topology
  const rendered = text
    .replace(/^--.*$/gm, '')
    .replace(/\{\{session_fields (\w+)\}\}/g, (_, part: string) => {
      const render = SESSION_FIELD_PARTS[part]
      if (!render) throw new Error(`Unknown session_fields part ${part}; known: ${Object.keys(SESSION_FIELD_PARTS).join(', ')}`)
      return render()
    })
    .replace(/\{\{on_cluster\}\}/g, cluster ? `ON CLUSTER ${quote(cluster)}` : '')
    .replace(/\{\{table (\w+)\}\}/g, (_, table: string) => (cluster ? `${table}_local` : table))
    .replace(
      /CREATE TABLE IF NOT EXISTS (\w+)([^]*?)ENGINE = \{\{(sharded|everywhere) ([^}]+)\}\}/g,
      (_, table: string, body: string, kind: string, engine: string) => {
        if (!cluster) return `CREATE TABLE IF NOT EXISTS ${table}${body}ENGINE = ${engine}`
        const zkPath =
          kind === 'sharded' ? `/clickhouse/tables/{shard}/${database}/${table}` : `/clickhouse/tables/all/${database}/${table}`
        return `CREATE TABLE IF NOT EXISTS ${table}${body}ENGINE = ${replicated(engine, zkPath)}`
      },
    )
    .replace(/\{\{distributed (\w+) ([^}]+)\}\}/g, (_, table: string, shardingKey: string) =>
      cluster
        ? `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER ${quote(cluster)} AS ${table}_local ` +
          `ENGINE = Distributed(${quote(cluster)}, ${quote(database)}, ${quote(`${table}_local`)}, ${shardingKey})`
        : '',
    )
    .replace(/\{\{on_distributed (\w+): ([^}]+)\}\}/g, (_, table: string, clauses: string) =>
      cluster ? `ALTER TABLE ${table} ON CLUSTER ${quote(cluster)} ${clauses}` : '',
    )
  if (/\{\{/.test(rendered))
    throw new Error(`Unknown migration marker in: ${rendered.slice(rendered.indexOf('{{'), rendered.indexOf('{{') + 60)}`)
  return rendered
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter(Boolean)
}

/** The migrations squashed into the baseline, in their order: a directory that applied them all has the baseline's source tables. */
export const LEGACY_MIGRATIONS = [
  '001_events',
  '002_sessions',
  '003_profiles',
  '004_projects_and_clients',
  '005_settled_sessions',
  '006_settled_page_views',
  '007_settled_by_compaction',
  '008_page_rollup',
  '009_revenue_by_hour',
  '010_session_pages',
  '011_chart_by_hour',
  '012_event_keys',
  '013_compactions_by_number',
  '014_settled_by_month',
  '015_session_keys',
  '016_page_keys',
  '017_session_rollup',
  '018_compaction_job',
  '019_compaction_lease',
  '020_compaction_run',
  '021_compaction_claims',
  '022_session_exits',
] as const

const SOURCE_MIGRATION = '001_source_tables'
const DERIVED_MIGRATION = '002_derived_tables'
/** Derived tables of the legacy migrations that the baseline no longer has: dropped with the derived tables. */
const LEGACY_DERIVED_TABLES = ['compaction_job', 'compaction_run']

/** A data directory from before the baseline that cannot be upgraded: it says how to re-import it. */
export class LegacySchemaError extends Error {}

/**
 * The name a migration is recorded under: its file's, and for the derived tables' migration, with the version
 * of its text as rendered for one node (the first 64 bits of its SHA-256, hex), so a changed definition of
 * the derived tables is a migration not yet applied.
 */
export function recordedName(migration: { name: string; text: string }): string {
  if (migration.name !== DERIVED_MIGRATION) return migration.name
  const rendered = renderMigration(migration.text, { database: 'quarry' }).join(';\n')
  return `${migration.name}@${crypto.createHash('sha256').update(rendered).digest('hex').slice(0, 16)}`
}

/** Every table the derived tables' migration creates (and the legacy ones it replaced), as DROP statements. */
function dropDerived(text: string, topology: Topology): string[] {
  const created = [...text.matchAll(/^CREATE TABLE IF NOT EXISTS (?:\{\{table (\w+)\}\}|(\w+))/gm)].map((match) => ({
    name: match[1] ?? match[2],
    sharded: match[1] !== undefined,
  }))
  const drops = [...created, ...LEGACY_DERIVED_TABLES.map((name) => ({ name, sharded: false }))].flatMap(({ name, sharded }) => [
    `DROP TABLE IF EXISTS ${sharded ? `{{table ${name}}}` : name} {{on_cluster}} SYNC;`,
    // The Distributed table over the local ones on a cluster (on one node, the same table: already gone).
    ...(sharded ? [`DROP TABLE IF EXISTS ${name} {{on_cluster}} SYNC;`] : []),
  ])
  return renderMigration(drops.join('\n'), topology)
}

/**
 * What a database's recorded migrations say about its schema: `fresh` (none from before the baseline),
 * `upgradable` (every legacy one, no baseline: its source tables are the baseline's), or refused.
 */
function checkLegacy(applied: ReadonlySet<string>): 'fresh' | 'upgradable' {
  const legacy = LEGACY_MIGRATIONS.filter((name) => applied.has(name))
  if (legacy.length === 0 || applied.has(SOURCE_MIGRATION)) return 'fresh'
  const missing = LEGACY_MIGRATIONS.filter((name) => !applied.has(name))
  if (missing.length === 0) return 'upgradable'
  throw new LegacySchemaError(
    `this database was made by an earlier Quarry and never migrated to the last schema before the migrations were squashed (missing ${missing.join(', ')}); ` +
      'this version cannot upgrade it. Re-import it: with the earlier version, `npm run cli -- export --project ID --out FILE` for each project; ' +
      'then, on a new data directory or database, `npm run cli -- project create ID` and `npm run cli -- import --project ID --file FILE`',
  )
}

export function listMigrations(): { name: string; text: string }[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file.replace(/\.sql$/, ''), text: fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8') }))
}

function trackingTable(topology: Topology): string {
  const onCluster = topology.cluster ? ` ON CLUSTER ${quote(topology.cluster)}` : ''
  const engine = topology.cluster
    ? replicated('ReplacingMergeTree()', `/clickhouse/tables/all/${topology.database}/quarry_migrations`)
    : 'ReplacingMergeTree()'
  return `CREATE TABLE IF NOT EXISTS quarry_migrations${onCluster} (name String, applied_at DateTime64(3, 'UTC')) ENGINE = ${engine} ORDER BY name`
}

/** A server's schema is behind this gateway's migrations: it says which, and how to apply them. */
export class SchemaBehindError extends Error {}

/** The names of the migrations not yet applied (every one, on a database never migrated). */
export async function pendingMigrations(engine: Engine): Promise<string[]> {
  const [{ tracked }] = await engine.admin.rows<{ tracked: number }>(compileTemplate('admin/migrations-tracked.sql', {}))
  const done = Number(tracked) ? await engine.admin.rows<{ name: string }>(compileTemplate('admin/migrations-applied.sql', {})) : []
  const applied = new Set(done.map((row) => row.name))
  checkLegacy(applied)
  return listMigrations()
    .map(recordedName)
    .filter((name) => !applied.has(name))
}

/**
 * Embedded: migrates, and returns what it applied. On a server: migrates nothing, and refuses (a
 * SchemaBehindError naming the migrations) unless every one is applied.
 */
export async function prepareSchema(engine: Engine): Promise<string[]> {
  if (engine.settings.mode === 'embedded') return migrate(engine)
  const pending = await pendingMigrations(engine)
  if (pending.length) {
    throw new SchemaBehindError(
      `the database schema is behind this version: ${pending.length} migration(s) not applied (${pending.join(', ')}). ` +
        'Run `npm run cli -- migrate` once (the Docker Compose file runs it before the gateway), then start again',
    )
  }
  return []
}

/** Applies every migration not yet recorded; returns the names it applied. */
export async function migrate(engine: Engine): Promise<string[]> {
  const topology = { cluster: engine.settings.cluster, database: engine.settings.database }
  const ddl = (template: string, sql: string) => engine.admin.command({ template, sql, params: {} })
  await ddl('admin.migrations-table', trackingTable(topology))
  const done = await engine.admin.rows<{ name: string }>(compileTemplate('admin/migrations-applied.sql', {}))
  const applied = new Set(done.map((row) => row.name))
  const record = (name: string) =>
    engine.admin.command(compileTemplate('admin/migration-record.sql', { name, appliedAt: toClickHouseTime(new Date()) }))
  // A directory that applied every legacy migration has the baseline's source tables (by other texts):
  // recorded as applied; its derived tables are dropped and created anew below, as for a changed definition.
  if (checkLegacy(applied) === 'upgradable') {
    await record(SOURCE_MIGRATION)
    applied.add(SOURCE_MIGRATION)
  }
  const ran: string[] = []
  for (const migration of listMigrations()) {
    const name = recordedName(migration)
    if (applied.has(name)) continue
    const statements = renderMigration(migration.text, topology)
    if (migration.name === DERIVED_MIGRATION) statements.unshift(...dropDerived(migration.text, topology))
    for (const statement of statements) await ddl(`migrations.${migration.name}`, statement)
    await record(name)
    ran.push(name)
  }
  return ran
}
