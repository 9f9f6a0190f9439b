// The session fields are listed once (queries/core/registry.ts, SESSION_FIELDS); the partial row the view
// writes and the import rebuilds, the columns of `sessions` and `sessions_settled`, and how partial rows
// are combined are generated from that list. Adding a field is the list plus this test.
import assert from 'node:assert/strict'
import { BREAKDOWNS, COMPACTION_DEFINITION, definitionOf } from '../../queries/sessions/definition'
import { SESSION_ATTRIBUTES, SESSION_EXITS, SESSION_FIELDS, SESSION_ONLY_ATTRIBUTES } from '../../queries/core/registry'
import {
  combinedFieldColumns,
  combinedFields,
  firstEventFields,
  partialFieldColumns,
  partialRowColumns,
  partialRowSelect,
  type SessionFields,
} from '../../queries/sessions/session-fields'
import { listMigrations, renderMigration } from '../../server/admin/migrate'
import { combinedTable } from '../../queries/sessions/combined-tables'
import { CompactionSql } from '../../server/admin/compaction-sql'

const FIELDS = Object.keys(SESSION_FIELDS)
/** The list with one more field: a first-event value read from another events column. */
const WITH_LANDING: SessionFields = { ...SESSION_FIELDS, landing_title: { type: 'String', event: 'title' } }

/** The single-node statement of a migration that starts with `start`. */
const statementOf = (name: string, start: string) => {
  const migration = listMigrations().find((m) => m.name === name)
  assert.ok(migration, name)
  return (
    renderMigration(migration.text, { database: 'analytics' }).find((statement) => statement.startsWith(start)) ??
    assert.fail(`${name}: ${start}`)
  )
}
/** The column names of a rendered CREATE TABLE. */
const columnsOf = (statement: string) => [...statement.matchAll(/^\s+(\w+) [A-Z]\w*(\(.*\))?,?$/gm)].map((match) => match[1])

describe('session fields', () => {
  it('are the attributes, the entry page read from its own events columns, and the exit page from the last view', () => {
    assert.deepEqual(FIELDS.slice(0, 3), ['referrer', 'referrer_name', 'referrer_type'])
    assert.deepEqual(SESSION_ONLY_ATTRIBUTES, ['entry_origin', 'entry_path'])
    assert.deepEqual(Object.keys(SESSION_EXITS), ['exit_origin', 'exit_path'])
    assert.deepEqual([...Object.keys(SESSION_ATTRIBUTES), ...Object.keys(SESSION_EXITS)], FIELDS)
    assert.match(partialRowSelect(), /\n  argMin\(origin, event_key\) AS entry_origin,\n  argMin\(path, event_key\) AS entry_path,\n/)
    assert.match(partialRowSelect(), /\n  maxIf\(event_key, name = 'screen_view'\) AS last_view_key,\n/)
    assert.match(
      partialRowSelect(),
      /,\n  argMaxIf\(origin, event_key, name = 'screen_view'\) AS exit_origin,\n  argMaxIf\(path, event_key, name = 'screen_view'\) AS exit_path$/,
    )
    assert.equal(
      combinedFields(['exit_path', 'entry_path']),
      ',\n  argMax(exit_path, last_view_key) AS s_exit_path,\n  argMin(entry_path, first_event_key) AS s_entry_path',
    )
  })

  it('generate the partial row: the view writes it, the import rebuilds it, in the same order as its column names', () => {
    const select = partialRowSelect().split(',\n')
    const columns = partialRowColumns().split(', ')
    assert.equal(select.length, columns.length)
    for (const [index, line] of select.entries()) assert.match(line, new RegExp(`\\b${columns[index]}$`))
    for (const field of FIELDS) assert.ok(columns.includes(field), field)
    const view = statementOf('001_source_tables', 'CREATE MATERIALIZED VIEW IF NOT EXISTS sessions_mv')
    assert.ok(view.includes(`SELECT\n${partialRowSelect()}\nFROM events\nGROUP BY project_id, session_id`), view)
  })

  it('generate the columns of sessions and of a combined session, each with its type', () => {
    const sessions = statementOf('001_source_tables', 'CREATE TABLE IF NOT EXISTS sessions ')
    assert.deepEqual(columnsOf(sessions), partialRowColumns().split(', '))
    assert.ok(sessions.includes(partialFieldColumns()))
    assert.match(partialFieldColumns(), /^  referrer String,\n  referrer_name LowCardinality\(String\),/)
    const settled = statementOf('002_derived_tables', 'CREATE TABLE IF NOT EXISTS sessions_settled ')
    assert.deepEqual(
      columnsOf(settled).filter((column) => column.startsWith('s_')),
      FIELDS.map((field) => `s_${field}`),
    )
    assert.ok(settled.includes(combinedFieldColumns()))
  })

  it("generate the compaction's combining of partial rows, as questions regroup them", () => {
    const build = new CompactionSql().build(combinedTable('sessions_settled'), {
      day: '2024-03-28',
      compaction: '1',
      readFrom: '2024-03-27 00:00:00.000',
      readTo: '2024-03-30 00:00:00.000',
    }).sql
    assert.ok(build.includes(`sum(event_count) AS all_events${combinedFields(undefined, '    ')}\n  FROM sessions`), build)
    assert.equal(
      combinedFields(['country', 'country', 'region']),
      ',\n  argMin(country, first_event_key) AS s_country,\n  argMin(region, first_event_key) AS s_region',
    )
    assert.equal(firstEventFields(['entry_path']), ',\n  argMin(path, (created_at, toString(id))) AS s_entry_path')
  })

  it('carry a field added to the list into every generated part, and into a new definition of the combined tables', () => {
    assert.match(partialRowSelect(WITH_LANDING), /,\n  argMin\(title, event_key\) AS landing_title$/)
    assert.match(partialRowColumns(WITH_LANDING), /, exit_path, landing_title$/)
    assert.match(partialFieldColumns(WITH_LANDING), /,\n  landing_title String$/)
    assert.match(combinedFieldColumns(WITH_LANDING), /,\n  s_landing_title String$/)
    assert.match(
      combinedFields(Object.keys(WITH_LANDING), '  ', WITH_LANDING),
      /,\n  argMin\(landing_title, first_event_key\) AS s_landing_title$/,
    )
    assert.equal(firstEventFields(['landing_title'], WITH_LANDING), ',\n  argMin(title, (created_at, toString(id))) AS s_landing_title')
    assert.notEqual(definitionOf(BREAKDOWNS, WITH_LANDING), COMPACTION_DEFINITION)
    assert.equal(definitionOf(BREAKDOWNS, SESSION_FIELDS), COMPACTION_DEFINITION)
  })
})
