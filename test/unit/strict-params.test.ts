// Query-string numbers are decimal digits and nothing else, and an enum's 400 names the values it takes:
// what ajv's coercion alone would let through ("0x10" as 16, " 5" as 5) or leave unsaid.
import assert from 'node:assert/strict'
import { funnel } from '../../queries/behaviour/funnel'
import { exportEvents } from '../../queries/export/export-resource'
import { eventPropertyValues } from '../../queries/discovery/discovery'
import { entryExit } from '../../queries/insights/entry-exit'
import { pages } from '../../queries/insights/pages'
import { compileSchema, schemaIssues } from '../../queries/core/validate'
import { requestIssues } from '../support/request-issues'

const steps = ['signup', 'purchase']

describe('strict numbers in query strings', () => {
  const refused = ['0x10', ' 5', '5 ', '\t5', '+5', '1e1', '5.0', '0b101', '0o7', '', '1_000', '٣']
  for (const text of refused) {
    it(`refuses windowHours=${JSON.stringify(text)} as not a decimal integer`, () => {
      assert.deepEqual(requestIssues(funnel, { steps, windowHours: text }), [
        'windowHours: "windowHours" must be a decimal integer (digits only)',
      ])
    })
  }

  it('lists every non-decimal integer of a request, once each, beside its other problems', () => {
    assert.deepEqual(requestIssues(pages, { limit: '0x10', cursor: ' 2', sortBy: 'size' }).sort(), [
      'cursor: "cursor" must be a decimal integer (digits only)',
      'limit: "limit" must be a decimal integer (digits only)',
      'sortBy: "sortBy" must be one of: sessions, pageviews, bounce_rate, avg_duration',
    ])
    assert.deepEqual(requestIssues(exportEvents, { projectId: 'shop', limit: '1e2', page: '0x2' }).sort(), [
      'limit: "limit" must be a decimal integer (digits only)',
      'page: "page" must be a decimal integer (digits only)',
    ])
  })

  it('still reads plain decimal integers, leading zeros and signs the bounds then judge', () => {
    assert.deepEqual(requestIssues(funnel, { steps, windowHours: '0721' }), ['windowHours: "windowHours" must be <= 720'])
    assert.deepEqual(requestIssues(funnel, { steps, windowHours: '-3' }), ['windowHours: "windowHours" must be >= 1'])
    const value: Record<string, unknown> = { count: '016', ratio: '-2.50' }
    assert.deepEqual(
      schemaIssues(compileSchema({ type: 'object', properties: { count: { type: 'integer' }, ratio: { type: 'number' } } }), value),
      [],
    )
    assert.deepEqual(value, { count: 16, ratio: -2.5 })
  })

  it('reads numbers (not only integers) as plain decimals: digits, then an optional fraction', () => {
    const validator = compileSchema({
      type: 'object',
      properties: { ratio: { type: 'number' }, counts: { type: 'array', items: { type: 'integer' } } },
    })
    assert.deepEqual(schemaIssues(validator, { ratio: '1e3', counts: ['1', '0x2'] }), [
      { path: ['ratio'], message: '"ratio" must be a decimal number (digits, optionally a point and more digits)' },
      { path: ['counts', 1], message: '"counts.1" must be a decimal integer (digits only)' },
    ])
    assert.deepEqual(schemaIssues(validator, { ratio: '.5' }), [
      { path: ['ratio'], message: '"ratio" must be a decimal number (digits, optionally a point and more digits)' },
    ])
  })
})

describe('a repeated parameter', () => {
  it('is a 400 naming it, not a crash, on property values (key=1e309&key=NaN)', () => {
    const issues = requestIssues(eventPropertyValues, { key: ['1e309', 'NaN'], event: '' })
    assert.ok(
      issues.some((issue) => issue.startsWith('key:')),
      issues.join('\n'),
    )
  })
})

describe('enum parameters name their values', () => {
  it('lists the allowed values of a wrong one', () => {
    assert.match(
      requestIssues(pages, { range: '90d' }).join('\n'),
      /^range: "range" must be one of: 30min, lastHour, last24h, today, yesterday, 7d, 30d, 3m, 6m, 12m, monthToDate, lastMonth, yearToDate, lastYear, custom$/,
    )
  })

  it('names the values of a missing required one', () => {
    const validator = compileSchema({
      type: 'object',
      required: ['mode'],
      properties: { mode: { type: 'string', enum: ['entry', 'exit'] } },
    })
    assert.deepEqual(
      schemaIssues(validator, {}).map((issue) => `${issue.path.join('.')}: ${issue.message}`),
      ['mode: "mode" is required, one of: entry, exit'],
    )
  })

  it("takes OpenPanel's default mode on entry and exit pages, and names the values of a wrong one", () => {
    assert.deepEqual(requestIssues(entryExit, { mode: 'exits' }), ['mode: "mode" must be one of: entry, exit'])
  })
})
