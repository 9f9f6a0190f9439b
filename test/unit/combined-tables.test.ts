// The one declaration of the combined tables: every entry's build and relation templates exist and name its
// table (a rename that leaves one stale fails here), the migrations create it, and the definition hash
// covers every entry's build, in order.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { SQL_DIR, loadTemplate } from '../../queries/core/templates'
import { COMBINED_TABLES, type CombinedTable } from '../../queries/sessions/combined-tables'
import { BUILD_INPUTS, COMPACTION_DEFINITION, versionOf } from '../../queries/sessions/definition'
import { listMigrations, renderMigration } from '../../server/admin/migrate'

/** A template's SQL without its comment lines and comments: what names a table for the engine. */
const sqlOf = (file: string) => loadTemplate(file).text.replace(/--.*$/gm, '')

describe('combined tables', () => {
  it('are declared once each, in the order a day builds them', () => {
    assert.deepEqual(
      COMBINED_TABLES.map((entry) => entry.table),
      ['sessions_settled', 'page_views_settled', 'page_rollup', 'session_rollup'],
    )
  })

  it("have a build template that exists and inserts into the table's staging table", () => {
    for (const { table, build } of COMBINED_TABLES) {
      assert.ok(fs.existsSync(path.join(SQL_DIR, build.template)), `${table}: sql/${build.template} exists`)
      assert.match(sqlOf(build.template), new RegExp(`^INSERT INTO ${table}_stage\\n`, 'm'), `${table}: ${build.template}`)
    }
  })

  it('have relation templates that exist and read the table', () => {
    for (const { table, relations, serves } of COMBINED_TABLES) {
      assert.ok(relations.length > 0, `${table} is read by a relation`)
      assert.ok(serves.length > 0, `${table} says what it serves`)
      for (const relation of relations) {
        assert.ok(fs.existsSync(path.join(SQL_DIR, relation)), `${table}: sql/${relation} exists`)
        // A relation names its table, or reads the stored page views' table the wing places (sessions/page-views.ts).
        assert.match(sqlOf(relation), new RegExp(`\\bFROM (${table}\\b|/\\* @stored_table \\*/)`), `${table}: ${relation}`)
      }
    }
  })

  it('are created by the migrations, each with its staging table', () => {
    const created = listMigrations()
      .flatMap((migration) => renderMigration(migration.text, { database: 'quarry' }))
      .flatMap((statement) => /^CREATE TABLE IF NOT EXISTS (\w+)\s/.exec(statement)?.[1] ?? [])
    for (const { table } of COMBINED_TABLES) {
      assert.ok(created.includes(table), `a migration creates ${table}`)
      assert.ok(created.includes(`${table}_stage`), `a migration creates ${table}_stage`)
    }
  })

  it("version the definition by every entry's build, in order", () => {
    assert.equal(versionOf(COMBINED_TABLES, BUILD_INPUTS), COMPACTION_DEFINITION)
    const reordered = [COMBINED_TABLES[1], COMBINED_TABLES[0], ...COMBINED_TABLES.slice(2)]
    assert.notEqual(versionOf(reordered, BUILD_INPUTS), COMPACTION_DEFINITION)
    assert.notEqual(versionOf(COMBINED_TABLES.slice(0, 3), BUILD_INPUTS), COMPACTION_DEFINITION)
    const fifth: CombinedTable = {
      table: 'visitor_rollup',
      build: { template: '../test/support/visitor-rollup-build.sql' },
      serves: 'a test',
      relations: [],
    }
    assert.notEqual(versionOf([...COMBINED_TABLES, fifth], BUILD_INPUTS), COMPACTION_DEFINITION)
  })
})
