// The statements a compaction runs, rendered for one node and for a cluster. There is no ClickHouse server
// here: the cluster's statements are checked as rendered text, statement by statement, against what the
// ClickHouse documentation says each one does (docs/design/cluster.md).
import assert from 'node:assert/strict'
import path from 'node:path'
import { findTemplateProblems } from '../../queries/core/templates'
import { COMBINED_TABLES, combinedTable, type CombinedTable } from '../../queries/sessions/combined-tables'
import { BREAKDOWNS } from '../../queries/sessions/definition'
import { CLUSTER_BUILD_SETTINGS, CompactionSql, monthOf } from '../../server/admin/compaction-sql'
import { BACKGROUND_PRIORITY } from '../../server/priorities'

const JOB = { day: '2024-03-28', compaction: '198101711700000000', readFrom: '2024-03-27 21:00:00.000', readTo: '2024-03-29 03:00:00.000' }
const RUN = { lastDay: '2024-04-01', lookbackSeconds: 10_800, keepMs: 7_200_000, definition: '1234567890123456789' }
/** A statement without its comment lines: what the engine runs. */
const statement = (sql: string) =>
  sql
    .split('\n')
    .filter((line) => !/^\s*--/.test(line))
    .join('\n')
const JOB_CONSTANTS = [
  'WITH',
  "  CAST('2024-03-28' AS Date) AS job_day,",
  '  CAST(198101711700000000 AS UInt64) AS job_compaction,',
  "  CAST('2024-03-27 21:00:00.000' AS DateTime64(3, 'UTC')) AS job_read_from,",
  "  CAST('2024-03-29 03:00:00.000' AS DateTime64(3, 'UTC')) AS job_read_to",
].join('\n')

describe('compaction statements', () => {
  const node = new CompactionSql()
  const cluster = new CompactionSql('main')

  it('bind nothing: every value is a typed literal in the text, on one node and on a cluster', () => {
    for (const sql of [node, cluster]) {
      const queries = [
        sql.staleDays(RUN),
        sql.count(JOB),
        sql.record(JOB, 10_800, [{ project_id: 'shop', partial_rows: '12' }], RUN.definition),
        ...COMBINED_TABLES.flatMap((table) => [
          sql.clearStage(table),
          sql.build(table, JOB),
          sql.stageCheck(table, JOB),
          sql.attach(table, JOB.day),
          sql.superseded(table, RUN),
          sql.mutating(table),
          sql.drop(table, [{ day: JOB.day, compaction: JOB.compaction }]),
          sql.masked(table, 0.2),
          sql.unmask(table, '202403'),
        ]),
      ]
      for (const query of queries) {
        assert.deepEqual(query.params, {}, query.template)
        assert.doesNotMatch(statement(query.sql), /\{\w+:[^{}]+\}/, query.template)
      }
    }
  })

  it('on one node: the tables themselves, no ON CLUSTER, no sync, builds at background priority alone', () => {
    assert.equal(statement(node.clearStage(combinedTable('sessions_settled')).sql), 'TRUNCATE TABLE `sessions_settled_stage`')
    assert.equal(
      statement(node.attach(combinedTable('page_rollup'), JOB.day).sql),
      'ALTER TABLE `page_rollup`  ATTACH PARTITION CAST(202403 AS UInt32) FROM `page_rollup_stage`',
    )
    assert.equal(node.syncStage(combinedTable('sessions_settled')), undefined)
    const build = statement(node.build(combinedTable('sessions_settled'), JOB).sql)
    assert.ok(build.startsWith(`INSERT INTO sessions_settled_stage\n${JOB_CONSTANTS}\nSELECT\n`), build.slice(0, 400))
    assert.doesNotMatch(build, /SETTINGS/, 'settings go with the statement, not in its text')
    assert.deepEqual(node.build(combinedTable('sessions_settled'), JOB).settings, { priority: BACKGROUND_PRIORITY })
    assert.match(statement(node.masked(combinedTable('session_rollup'), 0.2).sql), /FROM system\.parts\n/)
    assert.match(statement(node.mutating(combinedTable('session_rollup')).sql), /FROM system\.mutations\n/)
    assert.equal(node.record(JOB, 10_800, [], RUN.definition).settings, undefined)
  })

  it("on a cluster: clears, syncs and attaches each shard's local tables ON CLUSTER", () => {
    assert.equal(
      statement(cluster.clearStage(combinedTable('sessions_settled')).sql),
      "TRUNCATE TABLE `sessions_settled_stage_local` ON CLUSTER 'main'",
    )
    for (const entry of COMBINED_TABLES) {
      const { table } = entry
      assert.equal(statement(cluster.syncStage(entry)?.sql ?? ''), `SYSTEM SYNC REPLICA ON CLUSTER 'main' \`${table}_stage_local\``)
      assert.equal(
        statement(cluster.attach(entry, JOB.day).sql),
        `ALTER TABLE \`${table}_local\` ON CLUSTER 'main' ATTACH PARTITION CAST(${monthOf(JOB.day)} AS UInt32) FROM \`${table}_stage_local\``,
      )
    }
  })

  it('on a cluster: builds insert into the Distributed staging tables from the Distributed sources, shard by shard where the engine can', () => {
    assert.deepEqual(CLUSTER_BUILD_SETTINGS, { parallel_distributed_insert_select: 2, distributed_foreground_insert: 1 })
    const reads = {
      sessions_settled: ['sessions', 'events'],
      page_views_settled: ['events'],
      page_rollup: ['page_views_settled_stage'],
      session_rollup: ['sessions_settled_stage'],
    }
    for (const entry of COMBINED_TABLES) {
      const { table } = entry
      const build = statement(cluster.build(entry, JOB).sql)
      assert.ok(build.startsWith(`INSERT INTO ${table}_stage\n${JOB_CONSTANTS}\nSELECT`), `${table}: ${build.slice(0, 300)}`)
      assert.deepEqual(cluster.build(entry, JOB).settings, { ...CLUSTER_BUILD_SETTINGS, priority: BACKGROUND_PRIORITY }, table)
      // The same select as on one node: only the settings differ.
      assert.equal(build, statement(node.build(entry, JOB).sql))
      const sources = [...build.matchAll(/\bFROM (\w+)/g)].map((match) => match[1])
      assert.deepEqual([...new Set(sources)].sort(), [...reads[table]].sort(), `${table} reads the Distributed tables only`)
      assert.doesNotMatch(build, /_local\b/)
    }
    // The rollups read one Distributed table and nothing else: the engine runs them on every shard.
    for (const table of ['page_rollup', 'session_rollup'] as const)
      assert.doesNotMatch(statement(cluster.build(combinedTable(table), JOB).sql), /\b(LEFT|INNER|CROSS|GLOBAL) JOIN\b|OVER \(/)
  })

  it('on a cluster: checks the staged rows through the Distributed staging table, and records the day once for the cluster', () => {
    assert.equal(
      statement(cluster.stageCheck(combinedTable('page_views_settled'), JOB).sql),
      "SELECT count() AS rows, countIf(day != CAST('2024-03-28' AS Date) OR compaction != CAST(198101711700000000 AS UInt64)) AS foreign_rows\nFROM `page_views_settled_stage`",
    )
    const record = statement(cluster.record(JOB, 10_800, [{ project_id: 'shop', partial_rows: 12 }], RUN.definition).sql)
    assert.match(
      record,
      /^INSERT INTO session_compactions \(project_id, day, compaction, lookback_seconds, partial_rows, definition\)\nSELECT\n/,
    )
    assert.match(record, /arrayZip\(CAST\(\['shop'\] AS Array\(String\)\), CAST\(\[12\] AS Array\(UInt64\)\)\)/)
    assert.deepEqual(cluster.record(JOB, 10_800, [{ project_id: 'shop', partial_rows: 12 }], RUN.definition).settings, {
      distributed_foreground_insert: 1,
    })
    assert.match(statement(cluster.count(JOB).sql), /FROM sessions\nWHERE started_at >= job_read_from/)
  })

  it("on a cluster: deletes and rewrites replaced compactions in each shard's local table ON CLUSTER, counting one replica of each shard", () => {
    assert.equal(
      statement(cluster.drop(combinedTable('session_rollup'), [{ day: JOB.day, compaction: JOB.compaction }]).sql),
      "DELETE FROM `session_rollup_local` ON CLUSTER 'main'\nWHERE day IN CAST(['2024-03-28'] AS Array(Date))\n  AND has(CAST(CAST(['198101711700000000'] AS Array(String)), 'Array(UInt64)'), compaction)",
    )
    assert.equal(
      statement(cluster.unmask(combinedTable('page_rollup'), '202403').sql),
      "ALTER TABLE `page_rollup_local` ON CLUSTER 'main' APPLY DELETED MASK IN PARTITION ID '202403'\nSETTINGS mutations_sync = 0",
    )
    const masked = statement(cluster.masked(combinedTable('page_rollup'), 0.2).sql)
    assert.match(
      masked,
      /FROM cluster\('main', system\.parts\)\n\s+WHERE database = currentDatabase\(\)\n\s+AND table = 'page_rollup_local'/,
    )
    assert.match(masked, /SELECT toString\(toYYYYMM\(day\)\) AS partition_id, count\(\) AS live_rows\n\s+FROM `page_rollup`\n/)
    assert.match(
      statement(cluster.mutating(combinedTable('page_rollup')).sql),
      /FROM clusterAllReplicas\('main', system\.mutations\)\nWHERE database = currentDatabase\(\)\n\s+AND table = 'page_rollup_local'/,
    )
    assert.match(statement(cluster.superseded(combinedTable('page_rollup'), RUN).sql), /FROM page_rollup\n/)
  })

  it('compact a table added to the declaration with the four, without a change here: its build in the day, its stage, its drops', () => {
    const fifth: CombinedTable = {
      table: 'visitor_rollup',
      build: { template: '../test/support/visitor-rollup-build.sql', fragments: ({ breakdowns }) => ({ breakdowns }) },
      serves: 'a test',
      relations: [],
    }
    assert.deepEqual(findTemplateProblems(path.join(__dirname, '..', 'support')), [])
    for (const cluster of [undefined, 'main']) {
      const declared = new CompactionSql(cluster)
      const five = new CompactionSql(cluster, [...COMBINED_TABLES, fifth])
      const swaps = five.swaps(JOB)
      assert.deepEqual(
        swaps.map((swap) => swap.table.table),
        ['sessions_settled', 'page_views_settled', 'page_rollup', 'session_rollup', 'visitor_rollup'],
      )
      // The four are swapped in as before.
      assert.deepEqual(swaps.slice(0, 4), declared.swaps(JOB))
      const { clear, build, check, sync, attach } = swaps[4]
      const local = cluster ? '_local' : ''
      const onCluster = cluster ? " ON CLUSTER 'main'" : ''
      assert.equal(statement(clear.sql), `TRUNCATE TABLE \`visitor_rollup_stage${local}\`${onCluster}`)
      assert.ok(statement(build.sql).startsWith(`INSERT INTO visitor_rollup_stage\n${JOB_CONSTANTS}\nSELECT\n`), build.sql)
      assert.ok(build.sql.includes(`ARRAY JOIN [${BREAKDOWNS.sql}] AS breakdown\n`), 'its fragments made from the build inputs')
      assert.deepEqual(build.params, {})
      assert.deepEqual(build.settings, { ...(cluster ? CLUSTER_BUILD_SETTINGS : {}), priority: BACKGROUND_PRIORITY })
      assert.match(statement(check.sql), /\nFROM `visitor_rollup_stage`$/)
      assert.equal(sync && statement(sync.sql), cluster && "SYSTEM SYNC REPLICA ON CLUSTER 'main' `visitor_rollup_stage_local`")
      assert.equal(
        statement(attach.sql),
        `ALTER TABLE \`visitor_rollup${local}\`${cluster ? onCluster : ' '} ATTACH PARTITION CAST(202403 AS UInt32) FROM \`visitor_rollup_stage${local}\``,
      )
      assert.deepEqual(
        five.tables.map((table) =>
          statement(five.drop(table, [{ day: JOB.day, compaction: JOB.compaction }]).sql)
            .split('\n')[0]
            .trimEnd(),
        ),
        ['sessions_settled', 'page_views_settled', 'page_rollup', 'session_rollup', 'visitor_rollup'].map(
          (table) => `DELETE FROM \`${table}${local}\`${onCluster}`,
        ),
      )
    }
  })
})
