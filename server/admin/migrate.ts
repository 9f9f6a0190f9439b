// Applies sql/migrations/*.sql in order, each once, tracked in `quarry_migrations`; safe to rerun. It runs
// on the engine's admin connection (CLICKHOUSE_ADMIN_USER on a server), never on the read-only serving lanes.
// Embedded, the process that opens the data directory migrates it (it alone holds the directory's lock). On
// a server, migrating is a one-shot step (`npm run cli -- migrate`, the container's migrate service): replicas
// starting together would race on a migration's DROP and RENAME, so a gateway or a CLI command only checks
// that every migration is applied, and refuses to start otherwise.
// The files carry markers so one text serves a single node and a cluster (Replicated + Distributed).
import fs from 'node:fs'
import path from 'node:path'
import { compileTemplate } from '../../queries/core/compiled'
import { toClickHouseTime } from '../../queries/core/pipeline'
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

/** Renders one migration's text for the topology and splits it into statements. */
export function renderMigration(text: string, topology: Topology): string[] {
  const { cluster, database } = topology
  const rendered = text
    .replace(/^--.*$/gm, '')
    .replace(/\{\{on_cluster\}\}/g, cluster ? `ON CLUSTER ${quote(cluster)}` : '')
    .replace(/\{\{table (\w+)\}\}/g, (_, table: string) => (cluster ? `${table}_local` : table))
    .replace(/CREATE TABLE IF NOT EXISTS (\w+)([^]*?)ENGINE = \{\{(sharded|everywhere) ([^}]+)\}\}/g, (_, table: string, body: string, kind: string, engine: string) => {
      if (!cluster) return `CREATE TABLE IF NOT EXISTS ${table}${body}ENGINE = ${engine}`
      const zkPath = kind === 'sharded' ? `/clickhouse/tables/{shard}/${database}/${table}` : `/clickhouse/tables/all/${database}/${table}`
      return `CREATE TABLE IF NOT EXISTS ${table}${body}ENGINE = ${replicated(engine, zkPath)}`
    })
    .replace(/\{\{distributed (\w+) ([^}]+)\}\}/g, (_, table: string, shardingKey: string) =>
      cluster
        ? `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER ${quote(cluster)} AS ${table}_local ` +
          `ENGINE = Distributed(${quote(cluster)}, ${quote(database)}, ${quote(`${table}_local`)}, ${shardingKey})`
        : '',
    )
    .replace(/\{\{on_distributed (\w+): ([^}]+)\}\}/g, (_, table: string, clauses: string) => (cluster ? `ALTER TABLE ${table} ON CLUSTER ${quote(cluster)} ${clauses}` : ''))
  if (/\{\{/.test(rendered)) throw new Error(`Unknown migration marker in: ${rendered.slice(rendered.indexOf('{{'), rendered.indexOf('{{') + 60)}`)
  return rendered
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter(Boolean)
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
  return listMigrations()
    .map((migration) => migration.name)
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
  const ran: string[] = []
  for (const migration of listMigrations()) {
    if (applied.has(migration.name)) continue
    for (const statement of renderMigration(migration.text, topology)) await ddl(`migrations.${migration.name}`, statement)
    await engine.admin.command(compileTemplate('admin/migration-record.sql', { name: migration.name, appliedAt: toClickHouseTime(new Date()) }))
    ran.push(migration.name)
  }
  return ran
}
