import assert from 'node:assert/strict'
import { listMigrations, renderMigration } from '../../server/admin/migrate'

const render = (name: string, cluster?: string) => {
  const migration = listMigrations().find((m) => m.name === name)
  assert.ok(migration, `migration ${name} exists`)
  return renderMigration(migration.text, { cluster, database: 'analytics' })
}

describe('migrations rendering', () => {
  it('lists the migrations in order', () => {
    assert.deepEqual(
      listMigrations().map((m) => m.name),
      ['001_events', '002_sessions', '003_profiles', '004_projects_and_clients', '005_settled_sessions', '006_settled_page_views', '007_settled_by_compaction', '008_page_rollup', '009_revenue_by_hour', '010_session_pages', '011_chart_by_hour', '012_event_keys', '013_compactions_by_number', '014_settled_by_month', '015_session_keys', '016_page_keys', '017_session_rollup', '018_compaction_job', '019_compaction_lease', '020_compaction_run', '021_compaction_claims', '022_session_exits', '023_session_list'],
    )
  })

  it('renders plain MergeTree tables on a single node', () => {
    const [events, ...rest] = render('001_events')
    assert.equal(rest.length, 0, 'no Distributed table on a single node')
    assert.match(events, /^CREATE TABLE IF NOT EXISTS events\s*\(/)
    assert.match(events, /ENGINE = MergeTree\(\)\nPARTITION BY toYYYYMM\(created_at\)\nORDER BY \(project_id, toDate\(created_at\), created_at, toUInt128\(id\)\)$/)
    assert.doesNotMatch(events, /\{\{|ON CLUSTER|Replicated/)
  })

  it('renders Replicated local tables and a Distributed table ON CLUSTER', () => {
    const [local, distributed] = render('001_events', 'main')
    assert.match(local, /^CREATE TABLE IF NOT EXISTS events_local ON CLUSTER 'main'\s*\(/)
    assert.match(local, /ENGINE = ReplicatedMergeTree\('\/clickhouse\/tables\/\{shard\}\/analytics\/events_local', '\{replica\}'\)/)
    assert.equal(
      distributed,
      "CREATE TABLE IF NOT EXISTS events ON CLUSTER 'main' AS events_local ENGINE = Distributed('main', 'analytics', 'events_local', cityHash64(project_id, session_id))",
    )
  })

  it('points the sessions view at the local tables on a cluster', () => {
    const statements = render('002_sessions', 'main')
    assert.equal(statements.length, 3)
    const view = statements[2]
    assert.match(view, /^CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_mv ON CLUSTER 'main' TO sessions_local AS/)
    assert.match(view, /FROM events_local\nGROUP BY project_id, session_id$/)
  })

  it('keeps version arguments of replacing engines after the replication arguments', () => {
    const [profiles] = render('003_profiles', 'main')
    assert.match(profiles, /ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/\{shard\}\/analytics\/profiles_local', '\{replica\}', last_seen_at\)/)
    const [projects, clients] = render('004_projects_and_clients', 'main')
    assert.match(projects, /^CREATE TABLE IF NOT EXISTS projects ON CLUSTER 'main'/)
    assert.match(projects, /ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/all\/analytics\/projects', '\{replica\}', updated_at\)/)
    assert.match(clients, /ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/all\/analytics\/api_clients', '\{replica\}', updated_at\)/)
  })

  for (const [migration, table] of [
    ['012_event_keys', 'events'],
    ['015_session_keys', 'sessions'],
  ]) {
    it(`${migration}: adds the keys to the local ${table} table, and to the Distributed table as aliases only on a cluster`, () => {
      const single = render(migration)
      assert.equal(single.length, 3)
      assert.match(single[0], new RegExp(`^ALTER TABLE ${table}\\s+ADD COLUMN IF NOT EXISTS session_key UInt128 MATERIALIZED reinterpretAsUInt128\\(sipHash128\\(session_id\\)\\)`))
      const cluster = render(migration, 'main')
      assert.equal(cluster.length, 4)
      assert.match(cluster[0], new RegExp(`^ALTER TABLE ${table}_local ON CLUSTER 'main'\\s+ADD COLUMN IF NOT EXISTS session_key UInt128 MATERIALIZED`))
      assert.equal(cluster[1], `ALTER TABLE ${table}_local ON CLUSTER 'main' MATERIALIZE COLUMN session_key`)
      assert.equal(
        cluster[3],
        `ALTER TABLE ${table} ON CLUSTER 'main' ADD COLUMN IF NOT EXISTS session_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(session_id)), ADD COLUMN IF NOT EXISTS profile_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(profile_id))`,
      )
    })
  }

  it('016_page_keys: adds the page key to the local events table, and to the Distributed table as an alias only on a cluster', () => {
    const single = render('016_page_keys')
    assert.deepEqual(single, [
      'ALTER TABLE events \n  ADD COLUMN IF NOT EXISTS page_key UInt128 MATERIALIZED reinterpretAsUInt128(sipHash128(origin, path))',
      'ALTER TABLE events  MATERIALIZE COLUMN page_key',
    ])
    const cluster = render('016_page_keys', 'main')
    assert.equal(cluster.length, 3)
    assert.equal(cluster[1], "ALTER TABLE events_local ON CLUSTER 'main' MATERIALIZE COLUMN page_key")
    assert.equal(cluster[2], "ALTER TABLE events ON CLUSTER 'main' ADD COLUMN IF NOT EXISTS page_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(origin, path))")
  })

  it('rejects an unknown marker', () => {
    assert.throws(() => renderMigration('CREATE TABLE {{bogus x}} (a UInt8) ENGINE = Log', { database: 'd' }), /Unknown migration marker/)
  })
})
