// The generated row types (queries/core/rows.generated.ts) are current, and ClickHouse column types map to
// what the engine's JSON writes for them.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { parseColumnType, readReturns, splitTopLevel } from '../../queries/core/returns'
import { listSqlFiles, loadTemplate } from '../../queries/core/templates'
import { ROWS_FILE, generateRowTypes, jsonTypeOf, type WideIntegers } from '../../server/admin/row-types'
import { adminStatements, routeStatements } from '../support/row-statements'

const jsonOf = (type: string, wide: WideIntegers = 'number') => {
  const parsed = parseColumnType(type)
  assert.ok(parsed, `${type} parses`)
  return jsonTypeOf(parsed, wide)
}

describe('row types', () => {
  it('commits the types the @returns headers generate (npm run rows:types)', () => {
    assert.ok(generateRowTypes() === fs.readFileSync(ROWS_FILE, 'utf8'), 'queries/core/rows.generated.ts is stale: run npm run rows:types')
  })

  it('finds a column list in the template of every statement the routes and the admin side compile', () => {
    const fileOf = new Map(
      listSqlFiles()
        .filter((file) => !file.startsWith('migrations/'))
        .map((file) => [loadTemplate(file).name, file]),
    )
    const files = new Set(
      [...routeStatements(), ...adminStatements()].map(({ compiled }) => fileOf.get(compiled.template) ?? compiled.template),
    )
    assert.deepEqual(
      [...files].filter((file) => loadTemplate(file).returns?.kind !== 'columns'),
      [],
    )
    assert.ok(files.size >= 45, `${files.size} templates`)
  })

  it('maps each ClickHouse type to what JSONEachRow writes', () => {
    const cases: [string, string][] = [
      ['String', 'string'],
      ['LowCardinality(String)', 'string'],
      ['UInt8', 'number'],
      ['Int32', 'number'],
      ['Float64', 'number'],
      ['Decimal(18, 2)', 'number'],
      ['Bool', 'boolean'],
      ['UUID', 'string'],
      ['Date', 'string'],
      ["DateTime64(3, 'UTC')", 'string'],
      ['Nullable(UInt32)', 'number | null'],
      ['Array(LowCardinality(String))', 'ReadonlyArray<string>'],
      ['Array(Nullable(Float64))', 'ReadonlyArray<number | null>'],
      ['Map(String, String)', 'Readonly<Record<string, string>>'],
      ['Tuple(UInt8, String)', 'readonly [number, string]'],
      ['Tuple(a UInt8, b Array(String))', '{ readonly a: number; readonly b: ReadonlyArray<string> }'],
      ["Enum8('read' = 1, 'write' = 2, 'root' = 3)", "'read' | 'write' | 'root'"],
    ]
    for (const [type, expected] of cases) assert.equal(jsonOf(type), expected, type)
  })

  it('types 64-bit and wider integers as the connection writes them: numbers when the runner pins it, else either', () => {
    assert.equal(jsonOf('UInt64'), 'number')
    assert.equal(jsonOf('Int128'), 'number')
    assert.equal(jsonOf('UInt64', 'number | string'), 'number | string')
    assert.equal(jsonOf('Nullable(Int64)', 'number | string'), 'number | string | null')
  })

  it('knows no type outside its list, and cuts lists at the commas outside parentheses and quotes', () => {
    const unknown = ['UInt46', 'Strng', 'Array(Strng)', 'Map(String)', 'Nested(a String)', 'Enum8(read = 1)']
    for (const type of unknown) assert.equal(parseColumnType(type), undefined, type)
    assert.deepEqual(splitTopLevel("a DateTime64(3, 'UTC'), b Enum8('x,y' = 1), c String"), [
      "a DateTime64(3, 'UTC')",
      "b Enum8('x,y' = 1)",
      'c String',
    ])
  })

  it('reads a column list that goes on over lines ending in a comma, then the prose', () => {
    const text =
      '-- @name x\n-- @returns a UInt64,\n--   b Array(String), @includes\n-- prose, with a comma,\n--   and more\nSELECT 1 /* @includes */'
    assert.deepEqual(readReturns(text, ['includes']), {
      returns: {
        kind: 'columns',
        columns: [
          { name: 'a', type: 'UInt64' },
          { name: 'b', type: 'Array(String)' },
        ],
        rest: 'includes',
      },
      problems: [],
    })
  })
})
