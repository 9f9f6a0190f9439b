import assert from 'node:assert/strict'
import { compileTemplate } from '../../queries/core/compiled'
import { inlineParams, typedLiteral } from '../../queries/core/literals'

describe('typed literals', () => {
  it('writes each placeholder type as a constant of that type', () => {
    assert.equal(typedLiteral('2024-03-28', 'Date'), "CAST('2024-03-28' AS Date)")
    assert.equal(typedLiteral('18446744073709551615', 'UInt64'), 'CAST(18446744073709551615 AS UInt64)')
    assert.equal(typedLiteral(-128, 'Int8'), 'CAST(-128 AS Int8)')
    assert.equal(typedLiteral(10_800, 'UInt32'), 'CAST(10800 AS UInt32)')
    assert.equal(typedLiteral(0.2, 'Float64'), 'CAST(0.2 AS Float64)')
    assert.equal(typedLiteral('2024-03-27 21:00:00.000', "DateTime64(3, 'UTC')"), "CAST('2024-03-27 21:00:00.000' AS DateTime64(3, 'UTC'))")
    assert.equal(typedLiteral("it's a \\ test", 'String'), "'it\\'s a \\\\ test'")
    assert.equal(typedLiteral('sessions_settled', 'Identifier'), '`sessions_settled`')
    assert.equal(typedLiteral(true, 'Bool'), 'true')
    assert.equal(typedLiteral(['1', '2'], 'Array(UInt64)'), 'CAST([1, 2] AS Array(UInt64))')
    assert.equal(typedLiteral(['2024-03-01', '2024-03-02'], 'Array(Date)'), "CAST(['2024-03-01', '2024-03-02'] AS Array(Date))")
    assert.equal(typedLiteral([], 'Array(String)'), 'CAST([] AS Array(String))')
  })

  it('refuses a value that is not of its type, so that no text becomes SQL', () => {
    assert.throws(() => typedLiteral('1; DROP TABLE events', 'UInt64'), /is not a UInt64/)
    assert.throws(() => typedLiteral('-1', 'UInt32'), /is not a UInt32/)
    assert.throws(() => typedLiteral('18446744073709551616', 'UInt64'), /is not a UInt64/)
    assert.throws(() => typedLiteral(128, 'Int8'), /is not a Int8/)
    assert.throws(() => typedLiteral(1.5, 'Int64'), /is not a Int64/)
    assert.throws(() => typedLiteral("2024-03-28') OR 1 = 1 --", 'Date'), /is not a Date/)
    assert.throws(() => typedLiteral('yesterday', "DateTime64(3, 'UTC')"), /is not a DateTime64/)
    assert.throws(() => typedLiteral(3, 'String'), /is not a String/)
    assert.throws(() => typedLiteral('', 'Identifier'), /is not a Identifier/)
    assert.throws(() => typedLiteral('a', 'Array(String)'), /is not an Array\(String\)/)
    assert.throws(() => typedLiteral(['x'], 'Array(UInt64)'), /is not a UInt64/)
    assert.throws(() => typedLiteral('x', 'Map(String, String)'), /no typed literal for Map/)
  })

  it('inlines every placeholder of a compiled statement, which then binds nothing', () => {
    const compiled = compileTemplate('admin/compact-stage-check.sql', {
      stage: 'sessions_settled_stage',
      day: '2024-03-28',
      compaction: '198101711700000000',
    })
    const inlined = inlineParams(compiled)
    assert.deepEqual(inlined.params, {})
    assert.equal(inlined.template, compiled.template)
    assert.match(
      inlined.sql,
      /countIf\(day != CAST\('2024-03-28' AS Date\) OR compaction != CAST\(198101711700000000 AS UInt64\)\) AS foreign_rows\nFROM `sessions_settled_stage`$/,
    )
    assert.doesNotMatch(inlined.sql, /\{\w+:/)
  })
})
