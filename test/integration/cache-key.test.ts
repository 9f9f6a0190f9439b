// What the result cache knows a question by: a repeated identical request is answered from the cache without
// compiling its statement again, and a request that differs in any parameter that changes its statement or its
// shaping (limit, page, cursor, time zone, mode, a filter value, a funnel's steps, grouping or breakdown, a
// chart's interval or segment, a compare mode) is never answered with another request's entry: it misses, and answers as fresh.
import assert from 'node:assert/strict'
import request from 'supertest'
import { pages } from '../../queries/insights/pages'
import { createProject } from '../../server/admin/control'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { randomEvents } from '../support/random-events'

const PROJECT = { id: 'cache-key', timezone: 'Europe/Berlin', from: new Date('2024-03-01T00:00:00Z'), days: 14, sessions: 400 }
const NOW = new Date('2024-04-20T12:00:00Z')
// Settled: the window ended weeks before now, so its entries live minutes, longer than the test.
const SETTLED = { startDate: '2024-03-01', endDate: '2024-03-14' }
const filter = (country: string) => JSON.stringify([{ name: 'country', operator: 'is', value: [country] }])

type Query = Record<string, string | string[]>

/** A route, the request every variant starts from, and the variants: each differs from it in one parameter. */
interface Case {
  path: string
  base: Query
  variants: Record<string, Query>
  /** A keyset list: one more variant asks the page after the base's, by the cursor the base answers. */
  keyset?: boolean
}

const CASES: Case[] = [
  {
    path: `/insights/${PROJECT.id}/pages`,
    base: SETTLED,
    variants: {
      limit: { limit: '3' },
      page: { limit: '3', cursor: '2' },
      timezone: { timezone: 'America/New_York' },
      filter: { filters: filter('DE') },
      'filter value': { filters: filter('FR') },
      compare: { compare: 'previous' },
      'compare mode': { compare: 'year' },
    },
  },
  {
    path: `/insights/${PROJECT.id}/referrer`,
    base: SETTLED,
    variants: {
      limit: { limit: '2' },
      timezone: { timezone: 'UTC' },
      filter: { filters: filter('DE') },
      'filter value': { filters: filter('US') },
      compare: { compare: 'previous' },
      'compare mode': { compare: 'year' },
    },
  },
  {
    path: `/insights/${PROJECT.id}/pages/entry_exit`,
    base: { ...SETTLED, mode: 'entry' },
    variants: { mode: { mode: 'exit' }, limit: { limit: '2' }, timezone: { timezone: 'UTC' }, filter: { filters: filter('DE') } },
  },
  {
    path: `/insights/${PROJECT.id}/sessions`,
    base: SETTLED,
    variants: { limit: { limit: '5' }, timezone: { timezone: 'UTC' }, filter: { filters: filter('DE') } },
    keyset: true,
  },
  {
    path: `/insights/${PROJECT.id}/funnel`,
    base: { ...SETTLED, steps: ['screen_view', 'add_to_cart'] },
    variants: {
      'grouped by': { groupBy: 'profile_id' },
      breakdown: { breakdown: 'country' },
      steps: { steps: ['screen_view', 'purchase'] },
      compare: { compare: 'previous' },
    },
  },
  {
    path: '/export/charts',
    base: { projectId: PROJECT.id, ...SETTLED, interval: 'day', series: JSON.stringify([{ name: 'screen_view', segment: 'user' }]) },
    variants: {
      interval: { interval: 'week' },
      timezone: { timezone: 'UTC' },
      'series filter': {
        series: JSON.stringify([{ name: 'screen_view', segment: 'user', filters: [{ name: 'country', operator: 'is', value: ['DE'] }] }]),
      },
      segment: { series: JSON.stringify([{ name: 'screen_view', segment: 'event' }]) },
    },
  },
]

describe('result cache keys', function () {
  this.timeout(300_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: NOW })
    await createProject(h.engine, { id: PROJECT.id, timezone: PROJECT.timezone })
    await insertRawEvents(h.engine, randomEvents(7, PROJECT), PROJECT.id)
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  const ask = (path: string, query: Query, headers: Record<string, string> = auth) => {
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) for (const item of Array.isArray(value) ? value : [value]) search.append(name, item)
    return request(h.app).get(`${path}?${search}`).set(headers)
  }

  for (const { path, base, variants, keyset } of CASES) {
    const differing = [...Object.keys(variants), ...(keyset ? ['cursor'] : [])]
    it(`${path}: the same request twice shares an entry; one differing in ${differing.join(', ')} does not`, async () => {
      const first = await ask(path, base)
      assert.equal(first.status, 200, first.text)
      const again = await ask(path, base)
      assert.equal(again.headers['x-cache'], 'hit', 'an identical request')
      assert.equal(again.text, first.text)
      const nextCursor = (first.body as { meta?: { nextCursor?: string | null } }).meta?.nextCursor
      if (keyset) assert.ok(nextCursor, 'the window holds more than one page')
      const all = keyset ? { ...variants, cursor: { cursor: String(nextCursor) } } : variants
      for (const [name, variant] of Object.entries(all)) {
        const query = { ...base, ...variant }
        const answer = await ask(path, query)
        assert.equal(answer.status, 200, `${name}: ${answer.text}`)
        assert.equal(answer.headers['x-cache'], 'miss', `${name}: not answered from the entry of another request`)
        assert.notEqual(answer.text, first.text, `${name} changes the answer`)
        const fresh = await ask(path, query, { ...auth, 'cache-control': 'no-cache' })
        assert.equal(fresh.text, answer.text, `${name}: as fresh`)
        const repeated = await ask(path, query)
        assert.equal(repeated.headers['x-cache'], 'hit', `${name}, asked again`)
        assert.equal(repeated.text, answer.text, `${name}, asked again`)
      }
    })
  }

  it('answers a repeated request from the cache without compiling its statement again', async () => {
    const compile = pages.compile
    let compiled = 0
    pages.compile = (query, settled) => {
      compiled += 1
      return compile(query, settled)
    }
    try {
      const query = { ...SETTLED, limit: '4' }
      assert.equal((await ask(`/insights/${PROJECT.id}/pages`, query)).headers['x-cache'], 'miss')
      const once = compiled
      assert.ok(once >= 1, 'the first request compiles its statement')
      const repeated = await ask(`/insights/${PROJECT.id}/pages`, query)
      assert.equal(repeated.headers['x-cache'], 'hit')
      assert.equal(compiled, once, 'the repeated request compiled nothing')
    } finally {
      pages.compile = compile
    }
  })
})
