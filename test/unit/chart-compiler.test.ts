// The chart compiler: one statement for all series, exact SQL and params; formulas; 400s.
import assert from 'node:assert/strict'
import { chart } from '../../queries/charts/chart'
import { QueryError } from '../../queries/core/errors'
import { evaluateFormula, parseFormula } from '../../queries/charts/formula'
import { prepare, type Scope } from '../../queries/core/pipeline'
import { normalizedSql } from '../support/sql'

const scope: Scope = {
  project: { id: 'shop', name: 'Shop', timezone: 'Europe/Berlin' },
  now: new Date('2024-03-31T12:00:00Z'),
  sessionLookbackMs: 0,
}

function issuesOf(raw: Record<string, string>): string[] {
  try {
    prepare(chart, raw, scope)
  } catch (error) {
    assert.ok(error instanceof QueryError && error.code === 'invalid_request', String(error))
    return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
  }
  assert.fail('expected a 400')
}

describe('chart compiler', () => {
  it('compiles two series with a breakdown into one UNION ALL statement', () => {
    const series = JSON.stringify([
      { name: 'screen_view', filters: [{ name: 'path', operator: 'startsWith', value: ['/blog'] }] },
      { name: 'purchase', segment: 'property_sum', property: 'properties.price' },
    ])
    const { compiled } = prepare(
      chart,
      {
        series,
        breakdowns: JSON.stringify([{ name: 'country' }]),
        breakdownLimit: '5',
        startDate: '2024-03-30',
        endDate: '2024-03-31',
        interval: 'day',
      },
      scope,
    )
    assert.equal(compiled.template, 'export.chart')
    assert.deepEqual(compiled.params, {
      projectId: 'shop',
      start: '2024-03-29 23:00:00.000',
      end: '2024-03-31 22:00:00.000',
      from: '2024-03-29 23:00:00.000',
      tz: 'Europe/Berlin',
      s0_item: 0,
      s0_event: 'screen_view',
      s0_f0_v: ['/blog'],
      s0_groupLimit: 5,
      s1_item: 1,
      s1_event: 'purchase',
      s1_groupLimit: 5,
      s1_property_key: 'price',
    })
    assert.equal(
      normalizedSql(compiled.sql),
      `SELECT item, rank, labels, period, bucket, value
FROM
(
SELECT {s0_item:UInt32} AS item, top.rank AS rank, labels, if(in_window, 'current', 'previous') AS period, bucket, value
FROM
(
  SELECT
    created_at >= {start:DateTime64(3, 'UTC')} AS in_window,
    toUnixTimestamp(toStartOfDay(created_at, {tz:String})) AS bucket,
    [toString(country)] AS labels,
    toFloat64(count()) AS value
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {from:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}
    AND name = {s0_event:String}
    AND (arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {s0_f0_v:Array(String)}))
  GROUP BY in_window, bucket, labels
) AS buckets
INNER JOIN
(
SELECT labels, toUInt32(row_number() OVER (ORDER BY total DESC, labels ASC)) AS rank
FROM
(
  SELECT [toString(country)] AS labels, toFloat64(count()) AS total
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {start:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}
    AND name = {s0_event:String}
    AND (arrayExists(v -> startsWith(lowerUTF8(path), lowerUTF8(v)), {s0_f0_v:Array(String)}))
  GROUP BY labels
  HAVING total != 0
  ORDER BY total DESC, labels ASC
  LIMIT {s0_groupLimit:UInt32}
)
) AS top USING (labels)
UNION ALL
SELECT {s1_item:UInt32} AS item, top.rank AS rank, labels, if(in_window, 'current', 'previous') AS period, bucket, value
FROM
(
  SELECT
    created_at >= {start:DateTime64(3, 'UTC')} AS in_window,
    toUnixTimestamp(toStartOfDay(created_at, {tz:String})) AS bucket,
    [toString(country)] AS labels,
    toFloat64(ifNull(sum(if(match(properties[{s1_property_key:String}], '^[+-]?[0-9]+(\\\\.[0-9]+)?([eE][+-]?[0-9]+)?$'), toFloat64OrZero(properties[{s1_property_key:String}]), NULL)), 0)) AS value
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {from:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}
    AND name = {s1_event:String}
  GROUP BY in_window, bucket, labels
) AS buckets
INNER JOIN
(
SELECT labels, toUInt32(row_number() OVER (ORDER BY total DESC, labels ASC)) AS rank
FROM
(
  SELECT [toString(country)] AS labels, toFloat64(ifNull(sum(if(match(properties[{s1_property_key:String}], '^[+-]?[0-9]+(\\\\.[0-9]+)?([eE][+-]?[0-9]+)?$'), toFloat64OrZero(properties[{s1_property_key:String}]), NULL)), 0)) AS total
  FROM events
  WHERE project_id = {projectId:String}
    AND created_at >= {start:DateTime64(3, 'UTC')}
    AND created_at < {end:DateTime64(3, 'UTC')}
    AND name = {s1_event:String}
  GROUP BY labels
  HAVING total != 0
  ORDER BY total DESC, labels ASC
  LIMIT {s1_groupLimit:UInt32}
)
) AS top USING (labels)
)`,
    )
  })

  it('reads the previous window in the same statement', () => {
    const { compiled } = prepare(
      chart,
      { series: '[{"name":"*"}]', startDate: '2024-03-30', endDate: '2024-03-31', previous: 'true' },
      scope,
    )
    // The window is 47 hours (it spans the DST change); the previous one is the 47 hours before it.
    assert.equal(compiled.params.from, '2024-03-28 00:00:00.000')
    assert.equal((compiled.sql.match(/FROM events/g) ?? []).length, 1)
  })

  it('binds event names, property keys and breakdown keys as values', () => {
    const nasty = "x'] OR 1=1 --\\\u0000"
    const series = JSON.stringify([
      {
        name: nasty,
        segment: 'property_max',
        property: `properties.${nasty}`,
        filters: [{ name: `properties.${nasty}`, operator: 'is', value: [nasty] }],
      },
    ])
    const { compiled } = prepare(chart, { series, breakdowns: JSON.stringify([{ name: `properties.${nasty}` }]) }, scope)
    assert.ok(!compiled.sql.includes('OR 1=1'), 'no value in the SQL text')
    assert.equal(compiled.params.s0_event, nasty)
    assert.equal(compiled.params.s0_property_key, nasty)
    assert.equal(compiled.params.s0_b0_key, nasty)
    assert.deepEqual(compiled.params.s0_f0_v, [nasty])
  })

  const bad: [string, Record<string, string>, RegExp][] = [
    ['no series', {}, /"series" is required/],
    ['series not JSON', { series: '[{' }, /"series" is not valid JSON/],
    ['an empty series list', { series: '[]' }, /must NOT have fewer than 1 items/],
    ['eleven series', { series: JSON.stringify(Array.from({ length: 11 }, () => ({ name: 'a' }))) }, /must NOT have more than 10 items/],
    ['an unknown segment', { series: '[{"name":"a","segment":"visits"}]' }, /series\.0/],
    ['property_sum without property', { series: '[{"name":"a","segment":"property_sum"}]' }, /needs "property"/],
    ['a property on a count', { series: '[{"name":"a","property":"properties.x"}]' }, /takes no "property"/],
    [
      'an unknown numeric column',
      { series: '[{"name":"a","segment":"property_sum","property":"title"}]' },
      /is not properties\.<key> nor one of duration, revenue/,
    ],
    [
      'a bad series filter',
      { series: '[{"name":"a","filters":[{"name":"colour","operator":"is","value":["x"]}]}]' },
      /series\.0\.filters\.0\.name: unknown filter "colour"/,
    ],
    [
      'an entry_path filter',
      { series: '[{"name":"a","filters":[{"name":"entry_path","operator":"is","value":["/"]}]}]' },
      /describes sessions/,
    ],
    ['an unknown breakdown', { series: '[{"name":"a"}]', breakdowns: '[{"name":"colour"}]' }, /unknown breakdown "colour"/],
    [
      'four breakdowns',
      { series: '[{"name":"a"}]', breakdowns: '[{"name":"os"},{"name":"os"},{"name":"os"},{"name":"os"}]' },
      /more than 3 items/,
    ],
    [
      'a formula naming a missing series',
      { series: '[{"name":"a"},{"type":"formula","formula":"A/C"}]' },
      /refers to C, which name no event series/,
    ],
    [
      'a formula naming a formula',
      { series: '[{"name":"a"},{"type":"formula","formula":"A*2"},{"type":"formula","formula":"B+1"}]' },
      /refers to B/,
    ],
    ['JavaScript in a formula', { series: '[{"name":"a"},{"type":"formula","formula":"A; process.exit(1)"}]' }, /invalid formula/],
    ['an unclosed parenthesis', { series: '[{"name":"a"},{"type":"formula","formula":"(A+1"}]' }, /a "\(" is not closed/],
    ['a bad previous flag', { series: '[{"name":"a"}]', previous: 'yes' }, /"previous" must be one of: true, false/],
    ['too many cells', { series: '[{"name":"a"},{"name":"b"}]', range: '30d', interval: 'minute' }, /more than 20000/],
    ['breakdownLimit 0', { series: '[{"name":"a"}]', breakdownLimit: '0' }, /"breakdownLimit" must be >= 1/],
  ]
  for (const [what, raw, message] of bad) {
    it(`400s ${what}`, () => {
      const issues = issuesOf(raw)
      assert.ok(
        issues.some((issue) => message.test(issue)),
        issues.join('\n'),
      )
    })
  }
})

describe('chart items by the hour', () => {
  /** Which items of a chart place their events by the hour (so the chart_by_hour projection may answer them). */
  const hourlyItems = (raw: Record<string, string>) =>
    prepare(chart, raw, scope)
      .compiled.sql.split('\n\nUNION ALL\n\n')
      .map((part) => part.includes('toStartOfHour(created_at) >= {start:'))
  const series = (items: object[]) => JSON.stringify(items)
  const days = { startDate: '2024-03-01', endDate: '2024-03-31', interval: 'day' }

  it('counts, users, sessions and column sums without filters, over whole-hour bounds', () => {
    const items = [
      { name: 'screen_view', segment: 'user' },
      { name: '*', segment: 'session' },
      { name: 'purchase', segment: 'property_sum', property: 'revenue' },
      { name: 'purchase', segment: 'user_average' },
      { name: 'a' },
    ]
    assert.deepEqual(hourlyItems({ ...days, series: series(items) }), [true, true, true, true, true])
    assert.deepEqual(hourlyItems({ ...days, interval: 'hour', previous: 'true', series: series(items) }), [true, true, true, true, true])
  })

  it('not with filters, breakdowns, property values, a first-event segment or a bound inside an hour', () => {
    const items = [
      { name: 'screen_view', segment: 'user', filters: [{ name: 'country', operator: 'is', value: ['DE'] }] },
      { name: 'purchase', segment: 'property_sum', property: 'properties.price' },
      { name: 'purchase', segment: 'property_average', property: 'revenue' },
      { name: 'a', segment: 'one_event_per_user' },
      { name: 'a' },
    ]
    assert.deepEqual(hourlyItems({ ...days, series: series(items) }), [false, false, false, false, true])
    const plain = series([{ name: 'a' }])
    assert.deepEqual(hourlyItems({ ...days, series: plain, breakdowns: '[{"name":"country"}]' }), [false])
    assert.deepEqual(hourlyItems({ ...days, series: plain, timezone: 'Asia/Kathmandu' }), [false])
    assert.deepEqual(
      hourlyItems({ startDate: '2024-03-30T10:30:00Z', endDate: '2024-03-30T12:00:00Z', interval: 'minute', series: plain }),
      [false],
    )
    assert.deepEqual(
      hourlyItems({ startDate: '2024-03-30T10:00:00Z', endDate: '2024-03-30T12:00:00Z', interval: 'minute', series: plain }),
      [false],
    )
  })
})

describe('formulas', () => {
  const values: Record<string, number> = { A: 6, B: 3, C: 0 }
  const evaluate = (text: string) => evaluateFormula(parseFormula(text), (letter) => values[letter])
  it('respects precedence, parentheses and unary minus', () => {
    assert.equal(evaluate('A+B*2'), 12)
    assert.equal(evaluate('(A+B)*2'), 18)
    assert.equal(evaluate('-A/B'), -2)
    assert.equal(evaluate('A/B*100'), 200)
    assert.equal(evaluate(' 1.5 * A '), 9)
  })
  it('gives null on division by zero', () => {
    assert.equal(evaluate('A/C'), null)
    assert.equal(evaluate('A/C+1'), null)
  })
  it('refuses anything but numbers, letters and + - * / ( )', () => {
    for (const text of ['A^2', 'a+1', 'Math.max(A)', 'A B', '', '1..2', 'A+', '()']) {
      assert.throws(() => parseFormula(text), Error, text)
    }
  })
})
