import assert from 'node:assert/strict'
import { listMigrations, recordedName, renderMigration } from '../../server/admin/migrate'

const migrationText = (name: string) => listMigrations().find((m) => m.name === name)?.text ?? assert.fail(`migration ${name} exists`)
const render = (name: string, cluster?: string) => renderMigration(migrationText(name), { cluster, database: 'analytics' })

describe('migrations rendering', () => {
  it('starts from the baseline: the source tables, then the derived tables; later migrations come after it', () => {
    const names = listMigrations().map((m) => m.name)
    assert.deepEqual(names.slice(0, 2), ['001_source_tables', '002_derived_tables'])
    for (const name of names.slice(2)) assert.ok(name > '002_derived_tables', `${name} sorts after the baseline`)
  })

  it('renders plain MergeTree tables on a single node', () => {
    const [events, ...rest] = render('001_source_tables')
    assert.match(events, /^CREATE TABLE IF NOT EXISTS events\s*\(/)
    assert.match(
      events,
      /ENGINE = MergeTree\(\)\nPARTITION BY toYYYYMM\(created_at\)\nORDER BY \(project_id, toDate\(created_at\), created_at, toUInt128\(id\)\)$/,
    )
    for (const statement of [events, ...rest]) assert.doesNotMatch(statement, /\{\{|ON CLUSTER|Replicated|Distributed/)
    assert.equal(
      rest.filter((statement) => /^ALTER TABLE events /.test(statement)).length,
      3,
      'the keys and two projections, on the table itself',
    )
  })

  it('renders Replicated local tables and a Distributed table ON CLUSTER', () => {
    const [local, distributed] = render('001_source_tables', 'main')
    assert.match(local, /^CREATE TABLE IF NOT EXISTS events_local ON CLUSTER 'main'\s*\(/)
    assert.match(local, /ENGINE = ReplicatedMergeTree\('\/clickhouse\/tables\/\{shard\}\/analytics\/events_local', '\{replica\}'\)/)
    assert.equal(
      distributed,
      "CREATE TABLE IF NOT EXISTS events ON CLUSTER 'main' AS events_local ENGINE = Distributed('main', 'analytics', 'events_local', cityHash64(project_id, session_id))",
    )
  })

  it('adds the keys to the local tables, and to the Distributed tables as aliases only on a cluster', () => {
    const cluster = render('001_source_tables', 'main')
    assert.ok(
      cluster.some((statement) =>
        /^ALTER TABLE events_local ON CLUSTER 'main'\s+ADD COLUMN IF NOT EXISTS session_key UInt128 MATERIALIZED reinterpretAsUInt128\(sipHash128\(session_id\)\)/.test(
          statement,
        ),
      ),
    )
    assert.ok(
      cluster.includes(
        "ALTER TABLE events ON CLUSTER 'main' ADD COLUMN IF NOT EXISTS session_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(session_id)), ADD COLUMN IF NOT EXISTS profile_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(profile_id)), ADD COLUMN IF NOT EXISTS page_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(origin, path))",
      ),
    )
    assert.ok(
      cluster.includes(
        "ALTER TABLE sessions ON CLUSTER 'main' ADD COLUMN IF NOT EXISTS session_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(session_id)), ADD COLUMN IF NOT EXISTS profile_key UInt128 ALIAS reinterpretAsUInt128(sipHash128(profile_id))",
      ),
    )
    assert.ok(!render('001_source_tables').some((statement) => /ALIAS/.test(statement)))
  })

  it('points the sessions view at the local tables on a cluster', () => {
    const view =
      render('001_source_tables', 'main').find((statement) => statement.startsWith('CREATE MATERIALIZED VIEW')) ?? assert.fail('a view')
    assert.match(view, /^CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_mv ON CLUSTER 'main' TO sessions_local AS/)
    assert.match(view, /FROM events_local\nGROUP BY project_id, session_id$/)
  })

  it('keeps version arguments of replacing engines after the replication arguments', () => {
    const statements = render('001_source_tables', 'main')
    const find = (start: string) => statements.find((statement) => statement.startsWith(start)) ?? assert.fail(start)
    assert.match(
      find('CREATE TABLE IF NOT EXISTS profiles_local'),
      /ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/\{shard\}\/analytics\/profiles_local', '\{replica\}', last_seen_at\)/,
    )
    assert.match(
      find("CREATE TABLE IF NOT EXISTS projects ON CLUSTER 'main'"),
      /ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/all\/analytics\/projects', '\{replica\}', updated_at\)/,
    )
    assert.match(
      find("CREATE TABLE IF NOT EXISTS api_clients ON CLUSTER 'main'"),
      /ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/all\/analytics\/api_clients', '\{replica\}', updated_at\)/,
    )
  })

  it('gives the derived tables and their staging tables Distributed tables on a cluster, and the lease one table for every node', () => {
    const statements = render('002_derived_tables', 'main')
    for (const [table, key] of [
      ['sessions_settled', 'cityHash64(project_id, session_id)'],
      ['sessions_settled_stage', 'cityHash64(project_id, session_id)'],
      ['page_views_settled_stage', 'cityHash64(project_id, session_id)'],
      ['page_rollup_stage', 'cityHash64(project_id)'],
      ['session_rollup_stage', 'cityHash64(project_id)'],
      ['session_compactions', 'cityHash64(project_id)'],
    ]) {
      assert.ok(
        statements.some((statement) => statement.startsWith(`CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER 'main'`)),
        table,
      )
      assert.ok(
        statements.includes(
          `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER 'main' AS ${table}_local ENGINE = Distributed('main', 'analytics', '${table}_local', ${key})`,
        ),
        table,
      )
    }
    for (const table of ['compaction_claims', 'compaction_lease']) {
      assert.ok(
        statements.some((statement) =>
          new RegExp(
            `^CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER 'main'[^]*ReplicatedMergeTree\\('/clickhouse/tables/all/analytics/${table}'`,
          ).test(statement),
        ),
        table,
      )
    }
    assert.ok(
      !statements.some((statement) => /compaction_job|compaction_run/.test(statement)),
      'no job or run table: the compaction writes its constants as literals',
    )
  })

  it('records the derived tables under the version of their rendered text: a comment keeps it, a column changes it', () => {
    const text = migrationText('002_derived_tables')
    const version = recordedName({ name: '002_derived_tables', text })
    assert.match(version, /^002_derived_tables@[0-9a-f]{16}$/)
    assert.equal(recordedName({ name: '002_derived_tables', text: `${text}\n-- a note` }), version)
    assert.notEqual(
      recordedName({ name: '002_derived_tables', text: text.replace('  duration_ms Int64\n)', '  duration_ms Int64,\n  extra UInt8\n)') }),
      version,
    )
    assert.equal(recordedName({ name: '001_source_tables', text: migrationText('001_source_tables') }), '001_source_tables')
  })

  it('rejects an unknown marker', () => {
    assert.throws(() => renderMigration('CREATE TABLE {{bogus x}} (a UInt8) ENGINE = Log', { database: 'd' }), /Unknown migration marker/)
    assert.throws(() => renderMigration('{{session_fields bogus}}', { database: 'd' }), /Unknown session_fields part bogus/)
  })
})
