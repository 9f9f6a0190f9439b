import assert from 'node:assert/strict'
import { metrics } from '../../queries/insights/metrics'
import { pages } from '../../queries/insights/pages'
import { prepare, type Resource } from '../../queries/core/pipeline'
import type { InsightQuery } from '../../queries/insights/insight-params'
import { EVENT_FIELDS, SESSION_ATTRIBUTES } from '../../queries/core/registry'
import { SHOP_SCOPE, requestIssues } from '../support/request-issues'

const issuesOf = (raw: Record<string, unknown>, resource: Resource<InsightQuery> = pages) => requestIssues(resource, raw)

describe('insights parameters', () => {
  it('lists every problem of a request at once', () => {
    const issues = issuesOf({
      limit: '0',
      cursor: 'x',
      range: 'fortnight',
      foo: '1',
      filters: '[{"name":"colour","operator":"is","value":["x"]}]',
    })
    assert.deepEqual(issues.sort(), [
      'cursor: "cursor" must be a decimal integer (digits only)',
      `filters.0.name: unknown filter "colour"; known: ${[...Object.keys(SESSION_ATTRIBUTES), ...Object.keys(EVENT_FIELDS), 'properties.<key>'].join(', ')}`,
      'foo: unknown parameter "foo"',
      'limit: "limit" must be >= 1',
      'range: "range" must be one of: 30min, lastHour, last24h, today, yesterday, 7d, 30d, 3m, 6m, 12m, monthToDate, lastMonth, yearToDate, lastYear, custom',
    ])
  })

  it('lists every problem of a pages request at once, its order and search with the shared parameters', () => {
    const issues = issuesOf({ limit: '0', sortBy: 'title', sortOrder: 'up', search: 'x'.repeat(201), foo: '1' })
    assert.deepEqual(issues.sort(), [
      'foo: unknown parameter "foo"',
      'limit: "limit" must be >= 1',
      'search: "search" must NOT have more than 200 characters',
      'sortBy: "sortBy" must be one of: sessions, pageviews, bounce_rate, avg_duration',
      'sortOrder: "sortOrder" must be one of: desc, asc',
    ])
  })

  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['malformed filters JSON', { filters: '[{' }, /"filters" is not valid JSON/],
    ['filters neither an array nor a tree', { filters: '"country"' }, /"filters" must be array/],
    [
      'a tree of one session leaf without its operator',
      { filters: '{"name":"country"}' },
      /^filters\.operator: filters\.operator: .*required/,
    ],
    [
      'an unknown operator',
      { filters: '[{"name":"country","operator":"like","value":["x"]}]' },
      /filters\.0\.operator: "filters\.0\.operator" must be one of: is, isNot, contains, doesNotContain, startsWith, endsWith, regex, isNull, isNotNull, gt, lt, gte, lte$/,
    ],
    [
      'a value of the wrong type',
      { filters: '[{"name":"country","operator":"is","value":[true]}]' },
      /filters\.0\.value\.0: .* must be string,number/,
    ],
    [
      'a bare value instead of a list',
      { filters: '[{"name":"country","operator":"is","value":"DE"}]' },
      /filters\.0\.value: .* must be array/,
    ],
    ['an unknown key in a filter', { filters: '[{"name":"country","operator":"is","value":["DE"],"mode":"x"}]' }, /unknown key "mode"/],
    ['a positive operator without values', { filters: '[{"name":"country","operator":"is","value":[]}]' }, /needs at least one value/],
    ['isNull with values', { filters: '[{"name":"country","operator":"isNull","value":["x"]}]' }, /takes no values/],
    ['a numeric operator on a text field', { filters: '[{"name":"path","operator":"gt","value":[1]}]' }, /applies only to properties/],
    [
      'a numeric operator with a non-number',
      { filters: '[{"name":"properties.price","operator":"gt","value":["ten"]}]' },
      /"ten" is not a number/,
    ],
    ['an invalid regex', { filters: '[{"name":"path","operator":"regex","value":["("]}]' }, /invalid regular expression/],
    ['a look-ahead, which RE2 cannot run', { filters: '[{"name":"path","operator":"regex","value":["^(?=a)b"]}]' }, /not RE2 syntax/],
    ['a back-reference, which RE2 cannot run', { filters: '[{"name":"path","operator":"regex","value":["(a)\\\\1"]}]' }, /not RE2 syntax/],
    ['an empty property key', { filters: '[{"name":"properties.","operator":"is","value":["x"]}]' }, /unknown filter "properties\."/],
    ['an unknown timezone', { timezone: 'Mars/Olympus' }, /"timezone" must be an IANA time zone/],
    ['a timezone in the wrong case', { timezone: 'europe/berlin' }, /"timezone" must be an IANA time zone/],
    ['endDate alone', { endDate: '2024-03-31' }, /"endDate" needs a "startDate"/],
    ['custom without startDate', { range: 'custom' }, /range "custom" needs a "startDate"/],
    ['an impossible date', { startDate: '2024-02-30' }, /"startDate" must be YYYY-MM-DD or an ISO date-time/],
    ['a date-time without offset', { startDate: '2024-03-01T10:00:00' }, /"startDate" must be YYYY-MM-DD or an ISO date-time/],
    ['start after end', { startDate: '2024-03-31', endDate: '2024-03-30' }, /the window is empty/],
    ['a repeated parameter', { range: ['7d', '30d'] }, /"range" must be string/],
    ['limit above 1000', { limit: '1001' }, /"limit" must be <= 1000/],
  ]
  for (const [what, raw, message] of cases) {
    it(`400s ${what}`, () => {
      const issues = issuesOf(raw)
      assert.ok(
        issues.some((issue) => message.test(issue)),
        issues.join('\n'),
      )
    })
  }

  it('400s an unknown interval on metrics and paging parameters there', () => {
    const issues = issuesOf({ interval: 'fortnight', limit: '5' }, metrics)
    assert.equal(issues.length, 2, issues.join('\n'))
  })

  it('accepts a same-day window spanning the DST change (23 hours)', () => {
    const { query } = prepare(metrics, { startDate: '2024-03-31', endDate: '2024-03-31', interval: 'hour' }, SHOP_SCOPE)
    assert.equal(query.window.end.getTime() - query.window.start.getTime(), 23 * 3_600_000)
  })
})
