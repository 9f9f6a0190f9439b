// The ClickHouse-native sessions design the `sessions-spike` bench mode measures: an AggregatingMergeTree
// of one row per session key (after merges) that a materialized view fills with -State columns, read with
// -Merge; built in scratch tables beside the bench's own, and the session statements rewritten to read it.
import { SESSION_FIELDS, type SessionFieldSpec } from '../queries/core/registry'
import type { ChildGateway } from './gateway'

export const NATIVE_TABLE = 'spike_sessions'
/** A Null table the bench's events are copied into: it keeps nothing, but the view sees every block. */
const SOURCE_TABLE = 'spike_events'
const VIEW = 'spike_sessions_mv'
const REFRESH_DATABASE = 'spike_refresh'
const REFRESH_TARGET = 'spike_refreshed'
const REFRESH_VIEWS = ['spike_refresh_replace', 'spike_refresh_append']

/** The derived tables of the compaction: a native statement reads none of them. */
const COMBINED_TABLES = ['sessions_settled', 'page_views_settled', 'page_rollup', 'session_rollup']

/** The events column each session field is the first event's value of: the registry's one list (SESSION_FIELDS). */
const EVENT_COLUMN: Record<string, string> = Object.fromEntries(
  Object.entries(SESSION_FIELDS as Record<string, SessionFieldSpec>).flatMap(([field, spec]) => (spec.event ? [[field, spec.event]] : [])),
)
const STATE_COLUMNS = ['profile_id', 'device_id', ...Object.keys(SESSION_FIELDS)]

/**
 * Combined by merges as `SimpleAggregateFunction`s (the state of min, max, sum and any is the value
 * itself). TRICKY: a plain value, unlike an `AggregateFunction(min, ...)` state, can be compared before
 * grouping, so a read keeps only the partial rows of the window and its lookback, as `sessions` readers
 * do; a session cut by that range starts outside the window and is left out by its HAVING.
 */
const SIMPLE_COLUMNS: Record<string, string> = { session_id: 'any', started_at: 'min', ended_at: 'max', screen_views: 'sum', event_count: 'sum', revenue: 'sum' }

/** The view's select: one row of states per session and insert block, its attributes those of the earliest event. */
function viewSelect(): string {
  const states = STATE_COLUMNS.map((column) => `  argMinState(${EVENT_COLUMN[column] ?? column}, event_key) AS ${column}`)
  const eventColumns = [...new Set(['project_id', 'session_id', 'id', 'created_at', 'name', 'revenue', ...STATE_COLUMNS.map((column) => EVENT_COLUMN[column] ?? column)])]
  return `SELECT
  project_id,
  session_hash AS session_key,
  any(session_id) AS session_id,
  min(created_at) AS started_at,
  max(created_at) AS ended_at,
  toUInt64(countIf(name = 'screen_view')) AS screen_views,
  toUInt64(count()) AS event_count,
  sum(revenue) AS revenue,
  argMinState(profile_hash, event_key) AS profile_key,
${states.join(',\n')}
FROM
(
  SELECT
    ${eventColumns.join(', ')},
    reinterpretAsUInt128(sipHash128(session_id)) AS session_hash,
    reinterpretAsUInt128(sipHash128(profile_id)) AS profile_hash,
    bitOr(bitShiftLeft(toUInt256(toUnixTimestamp64Milli(created_at)), 128), toUInt256(toUInt128(id))) AS event_key
  FROM ${SOURCE_TABLE}
)
GROUP BY project_id, session_hash`
}

const SOURCE_COLUMNS = () => [...new Set(['id', 'project_id', 'name', 'session_id', 'created_at', 'revenue', ...STATE_COLUMNS.map((column) => EVENT_COLUMN[column] ?? column)])]

/** Drops every scratch table and database of the spike; safe to call when none exists. */
export async function dropNative(gateway: ChildGateway): Promise<void> {
  await dropRefreshViews(gateway)
  await gateway.command(`DROP VIEW IF EXISTS ${VIEW}`)
  await gateway.command(`DROP TABLE IF EXISTS ${NATIVE_TABLE}`)
  await gateway.command(`DROP TABLE IF EXISTS ${SOURCE_TABLE}`)
}

/** How the native table is filled: from HEAD's partial rows (the default), or by copying every event through its view. */
export type Fill = 'partial-rows' | 'view'

/**
 * One row of states per partial row of `sessions`: the row the native view writes for a session and insert
 * block holds exactly these values (its min, max and sums over the block, and each attribute's argMin state
 * of one value at the block's earliest event key), so the table gets the partial rows the seed's own blocks
 * gave, without sending the events through the view again.
 */
function partialRowStates(): string {
  const states = ['profile_key', ...STATE_COLUMNS].map((column) => `initializeAggregation('argMinState', ${column}, first_event_key)`)
  return `SELECT project_id, session_key, session_id, started_at, ended_at, toUInt64(screen_views), toUInt64(event_count), revenue,
  ${states.join(',\n  ')}
FROM sessions`
}

/**
 * Creates the native table and its view on a Null copy of events, and fills the table by `fill`. The
 * table's columns take the types the view's select gives them. Returns the seconds the fill took.
 */
export async function createNative(gateway: ChildGateway, fill: Fill): Promise<number> {
  const columns = SOURCE_COLUMNS().join(', ')
  await gateway.command(`CREATE TABLE ${SOURCE_TABLE} ENGINE = Null AS SELECT ${columns} FROM events WHERE 0`)
  const described = (await gateway.statement(`DESCRIBE TABLE (${viewSelect()})`, {})) as { name: string; type: string }[]
  const definitions = described.map(({ name, type }) => `  ${name} ${SIMPLE_COLUMNS[name] ? `SimpleAggregateFunction(${SIMPLE_COLUMNS[name]}, ${type})` : type}`)
  await gateway.command(`CREATE TABLE ${NATIVE_TABLE}\n(\n${definitions.join(',\n')}\n)\nENGINE = AggregatingMergeTree\nORDER BY (project_id, session_key)`)
  await gateway.command(`CREATE MATERIALIZED VIEW ${VIEW} TO ${NATIVE_TABLE} AS\n${viewSelect()}`)
  const started = performance.now()
  if (fill === 'view') await gateway.command(`INSERT INTO ${SOURCE_TABLE} (${columns}) SELECT ${columns} FROM events`)
  else await gateway.command(`INSERT INTO ${NATIVE_TABLE} (${described.map(({ name }) => name).join(', ')}) ${partialRowStates()}`)
  return (performance.now() - started) / 1000
}

/** Active parts and rows of a table, and how many distinct session keys its rows hold. */
export async function tableShape(gateway: ChildGateway, table: string): Promise<{ parts: number; rows: number; sessions: number }> {
  const [parts] = await gateway.statement(`SELECT count() AS parts, sum(rows) AS rows FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active`, { table })
  const [keys] = await gateway.statement(`SELECT uniqExact(session_key) AS sessions FROM ${table}`, {})
  return { parts: Number(parts.parts), rows: Number(parts.rows), sessions: Number(keys.sessions) }
}

/** Replaces the first match of `pattern` in `sql`, failing when there is none: a rewrite that misses must not pass. */
function replaceOnce(sql: string, pattern: RegExp, replacement: string, what: string): string {
  if (!pattern.test(sql)) throw new Error(`the native rewrite found no ${what}`)
  return sql.replace(pattern, replacement)
}

/**
 * The native design's statement for a HEAD statement compiled with no settled day (every day regrouped from
 * partial rows): the branches over the combined tables removed, and the regrouping of `sessions` partial
 * rows read from the native table instead, each `argMin(x, first_event_key)` as `argMinMerge(x)`. Everything
 * else (events joins, page ordering, shaping) is HEAD's own SQL, so only the sessions source differs (its
 * comment lines are dropped: they describe HEAD's reads).
 */
export function nativeSql(regroupedSql: string): string {
  // HEAD's comments describe HEAD's reads; only the SQL itself is checked for what it reads.
  let sql = regroupedSql.replace(/^\s*--.*\n/gm, '')
  for (const table of COMBINED_TABLES) {
    const branch = new RegExp(`SELECT\\n(?:(?!SELECT\\n)[\\s\\S])*?FROM ${table}\\n[\\s\\S]*?UNION ALL\\n`, 'g')
    sql = sql.replace(branch, '')
  }
  sql = replaceOnce(sql, /FROM sessions\nWHERE/g, `FROM ${NATIVE_TABLE}\nWHERE`, 'regrouping of sessions')
  sql = sql.replace(/argMin\((\w+), first_event_key\)/g, 'argMinMerge($1)')
  const left = [...COMBINED_TABLES, 'first_event_key'].filter((name) => sql.includes(name))
  if (left.length || /FROM sessions\b/.test(sql)) throw new Error(`the native rewrite left ${left.join(', ') || 'a read of sessions'} in:\n${sql}`)
  return sql
}

/** Drops the refreshable views of the check and their targets, so that no refresh runs while the bench times. */
export async function dropRefreshViews(gateway: ChildGateway): Promise<void> {
  for (const view of REFRESH_VIEWS) await gateway.command(`DROP VIEW IF EXISTS ${view}`)
  await gateway.command(`DROP DATABASE IF EXISTS ${REFRESH_DATABASE}`)
  await gateway.command(`DROP TABLE IF EXISTS ${REFRESH_TARGET}`)
}

/** What the engine did with a refreshable materialized view created one way. */
export interface RefreshFact {
  how: string
  /** 'created', or the engine's words when it refused. */
  created: string
  /** The refreshes seen while the bench waited: rows appended, or distinct refresh times read from the target. */
  refreshes: number
}

/**
 * Whether the embedded engine runs refreshable materialized views (check, don't assume): creates one in the
 * default database, one there with APPEND TO a table, and one in a database of the Atomic engine, each
 * counting the native table's sessions every second; samples their targets for `waitMs`.
 */
export async function checkRefreshableViews(gateway: ChildGateway, waitMs: number): Promise<RefreshFact[]> {
  const [database] = (await gateway.statement('SELECT currentDatabase() AS name', {})) as { name: string }[]
  const select = `SELECT uniqExact(session_key) AS sessions, now64(3) AS refreshed_at FROM ${database.name}.${NATIVE_TABLE}`
  const attempt = (sql: string) => gateway.command(sql).then(() => 'created', (error: Error) => `refused: ${error.message.split('\n')[0].trim()}`)
  await gateway.command(`CREATE TABLE ${REFRESH_TARGET} (sessions UInt64, refreshed_at DateTime64(3)) ENGINE = MergeTree ORDER BY refreshed_at`)
  await gateway.command(`CREATE DATABASE ${REFRESH_DATABASE} ENGINE = Atomic`)
  const views = [
    { how: 'in the default database, replacing its target', name: REFRESH_VIEWS[0], sql: `CREATE MATERIALIZED VIEW ${REFRESH_VIEWS[0]} REFRESH EVERY 1 SECOND ENGINE = MergeTree ORDER BY tuple() AS ${select}` },
    { how: 'in the default database, APPEND TO a table', name: REFRESH_TARGET, sql: `CREATE MATERIALIZED VIEW ${REFRESH_VIEWS[1]} REFRESH EVERY 1 SECOND APPEND TO ${REFRESH_TARGET} AS ${select}` },
    { how: 'in an Atomic database, replacing its target', name: `${REFRESH_DATABASE}.counted`, sql: `CREATE MATERIALIZED VIEW ${REFRESH_DATABASE}.counted REFRESH EVERY 1 SECOND ENGINE = MergeTree ORDER BY tuple() AS ${select}` },
  ]
  const created = await Promise.all(views.map((view) => attempt(view.sql)))
  const seen = views.map(() => new Set<string>())
  for (const started = performance.now(); performance.now() - started < waitMs; ) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    for (const [index, view] of views.entries()) {
      if (created[index] !== 'created') continue
      const rows = (await gateway.statement(`SELECT toString(refreshed_at) AS at FROM ${view.name}`, {})) as { at: string }[]
      for (const row of rows) seen[index].add(row.at)
    }
  }
  return views.map((view, index) => ({ how: view.how, created: created[index], refreshes: seen[index].size }))
}
