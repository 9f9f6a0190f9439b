// Rows are what their SQL says: each statement a route or the admin side runs is described by the engine
// (`DESCRIBE (statement)`, its params bound) and its columns, in order, with their types, must be those its
// template's `-- @returns` lists (queries/core/returns.ts), from which queries/core/rows.generated.ts types
// the rows the resources shape.
import assert from 'node:assert/strict'
import { compileTemplate, type CompiledQuery } from '../../queries/core/compiled'
import { listSqlFiles, loadTemplate } from '../../queries/core/templates'
import { startHarness, type Harness } from '../support/harness'
import {
  IMPORT_STAGE,
  PEOPLE_STAGE,
  adminStatements,
  columnDifferences,
  routeStatements,
  type DescribedColumn,
  type LabelledStatement,
} from '../support/row-statements'

const templates = listSqlFiles().filter((file) => !file.startsWith('migrations/'))
const fileOf = new Map(templates.map((file) => [loadTemplate(file).name, file]))

describe('rows against their @returns', function () {
  this.timeout(900_000)
  let h: Harness

  before(async () => {
    h = await startHarness()
    await h.engine.admin.command(compileTemplate('admin/import-stage.sql', { stage: IMPORT_STAGE }))
    await h.engine.admin.command(compileTemplate('admin/import-people-stage.sql', { stage: PEOPLE_STAGE, table: 'profiles' }))
  })
  after(() => h?.close())

  async function describeColumns(compiled: CompiledQuery): Promise<DescribedColumn[]> {
    const query = `DESCRIBE (${compiled.sql})`
    const result = await h.engine.client.query({
      query,
      query_params: { ...compiled.params },
      format: 'JSONEachRow',
      clickhouse_settings: { ...compiled.settings },
    })
    return (await result.json<DescribedColumn>()).map(({ name, type }) => ({ name, type }))
  }

  /** Every difference of the statements, once per template, as `file: difference (in N statements, the first: label)` lines. */
  async function differencesOf(statements: LabelledStatement[]): Promise<string[]> {
    const found = new Map<string, string[]>()
    for (const { label, compiled } of statements) {
      const file = fileOf.get(compiled.template)
      assert.ok(file, `${label}: template ${compiled.template} has no file`)
      for (const difference of columnDifferences(loadTemplate(file).returns, await describeColumns(compiled))) {
        const key = `sql/${file}: ${difference}`
        found.set(key, [...(found.get(key) ?? []), label])
      }
    }
    return [...found].map(([key, labels]) => `${key} (in ${labels.length} statement(s), the first: ${labels[0]})`)
  }

  it('tells a wrong type, a missing column and an extra one apart', async () => {
    const live = compileTemplate('insights/live.sql', {
      projectId: 'demo',
      since: '2024-04-15 09:55:00.000',
      now: '2024-04-15 10:00:00.000',
    })
    const engine = await describeColumns(live)
    assert.deepEqual(engine, [{ name: 'visitors', type: 'UInt64' }])
    const declared = (...columns: [string, string][]) => ({
      kind: 'columns' as const,
      columns: columns.map(([name, type]) => ({ name, type })),
    })
    assert.deepEqual(columnDifferences(declared(['visitors', 'UInt64']), engine), [])
    assert.deepEqual(columnDifferences(declared(['visitors', 'UInt32']), engine), [
      'column 1 is declared visitors UInt32, the engine gives visitors UInt64',
    ])
    assert.deepEqual(columnDifferences(declared(['visitors', 'UInt64'], ['pageviews', 'UInt64']), engine), [
      'declared column pageviews UInt64 is missing',
    ])
    assert.deepEqual(columnDifferences(declared(), engine), ['column visitors UInt64 is not declared'])
    assert.deepEqual(columnDifferences({ kind: 'fragment' }, engine), ['its template declares no columns ("-- @returns fragment")'])
  })

  it("gives every route's statements the columns their templates declare (example requests, both engines, settled days or not, joined)", async () => {
    const statements = routeStatements()
    assert.ok(statements.length > 100, `${statements.length} statements`)
    assert.deepEqual(await differencesOf(statements), [])
  })

  it('gives the compaction, import, migration and control statements the columns their templates declare', async () => {
    assert.deepEqual(await differencesOf(adminStatements()), [])
  })

  it('describes a statement of every template that declares columns', () => {
    const compiled = new Set([...routeStatements(), ...adminStatements()].map(({ compiled }) => fileOf.get(compiled.template)))
    assert.deepEqual(
      templates.filter((file) => loadTemplate(file).returns?.kind === 'columns' && !compiled.has(file)),
      [],
    )
  })
})
