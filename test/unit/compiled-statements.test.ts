// The planned query as the key of its compiled statement: equal queries give one key whatever the order of
// their keys; queries that differ in any value, or only in its type, give different keys; a query holding a
// value the key cannot tell apart gives none, and its statement is compiled every time.
import assert from 'node:assert/strict'
import type { CompiledQuery } from '../../queries/core/compiled'
import type { Resource } from '../../queries/core/pipeline'
import { CompiledStatements, plannedKey } from '../../queries/run/compiled-statements'

const window = { start: new Date('2024-03-01T00:00:00Z'), end: new Date('2024-03-15T00:00:00Z') }

describe('plannedKey', () => {
  it('is the same for equal queries, whatever the order of their keys', () => {
    const a = { projectId: 'p', window, filters: [{ name: 'country', value: ['DE'] }], limit: 10 }
    const b = {
      limit: 10,
      filters: [{ value: ['DE'], name: 'country' }],
      window: { end: new Date(window.end), start: new Date(window.start) },
      projectId: 'p',
    }
    assert.equal(plannedKey(a), plannedKey(b))
  })

  it('differs for queries that differ in a value or only in its type', () => {
    const keys = [
      { limit: 10 },
      { limit: 11 },
      { limit: '10' },
      { limit: null },
      { limit: undefined },
      {},
      { limit: [10] },
      { limit: { n: 10 } },
      { limit: new Date(10) },
      { limit: ['Date', 10] },
      { limit: Number.NaN },
      { limit: Number.POSITIVE_INFINITY },
      { limit: -0 },
      { limit: true },
      { limit: [undefined] },
      { limit: [null] },
      { limit: [] },
    ].map(plannedKey)
    assert.equal(new Set(keys).size, keys.length, keys.join('\n'))
  })

  it('gives no key for a value JSON cannot tell apart (a Map, a Set, a class instance, a function)', () => {
    class Range {
      constructor(readonly from: number) {}
    }
    for (const value of [new Map([['a', 1]]), new Set([1]), new Range(1), () => 1, BigInt(1), Symbol('s')]) {
      assert.equal(plannedKey({ window, value }), undefined, String(typeof value))
    }
  })
})

describe('CompiledStatements', () => {
  /** A resource whose statement binds its query's limit, counting its compiles. */
  function counting(name: string) {
    let compiles = 0
    const resource = {
      name,
      compile(query: { limit: number }): CompiledQuery {
        compiles += 1
        return Object.freeze({ template: 't', sql: 'SELECT {limit:UInt32}', params: Object.freeze({ limit: query.limit }) })
      },
    } as unknown as Resource<unknown, { limit: number; extra?: Map<string, number> }>
    return { resource, compiles: () => compiles }
  }

  it('compiles a question once, and again for another query or another resource', () => {
    const statements = new CompiledStatements()
    const pages = counting('pages')
    const first = statements.of(pages.resource, { limit: 5 })
    assert.equal(statements.of(pages.resource, { limit: 5 }), first)
    assert.equal(pages.compiles(), 1)
    assert.deepEqual(statements.of(pages.resource, { limit: 6 }).params, { limit: 6 })
    assert.equal(pages.compiles(), 2)
    const referrer = counting('referrer')
    statements.of(referrer.resource, { limit: 5 })
    assert.equal(referrer.compiles(), 1, 'another resource, the same query: compiled for it')
  })

  it('compiles every time a query it cannot key', () => {
    const statements = new CompiledStatements()
    const pages = counting('pages')
    statements.of(pages.resource, { limit: 5, extra: new Map([['a', 1]]) })
    statements.of(pages.resource, { limit: 5, extra: new Map([['a', 1]]) })
    assert.equal(pages.compiles(), 2)
  })
})
