// The SQL of a filter tree grows linearly with its leaves on every route that takes trees: each statement
// compiled (no engine) at n, 2n and 4n performed leaves, each with a filter.
import assert from 'node:assert/strict'
import { MAX_TREE_LEAVES } from '../../queries/core/filter-tree'
import { prepare, type AnyResource, type SettledRow } from '../../queries/core/pipeline'
import { dimensions } from '../../queries/insights/dimensions'
import { statementsOf } from '../../queries/run/statements'
import { ROUTES } from '../../server/routes/routes'
import { SHOP_SCOPE } from '../support/request-issues'

/** The engine's default `max_query_size`: a statement longer than this is refused before it runs (code 62). */
const MAX_QUERY_SIZE = 262_144
const SETTLED: SettledRow[] = [{ day: '2024-03-02', compaction: '7' }]

/** `count` distinct performed leaves under one `or`, each with one filter: 2 × count leaves of the cap. */
const performedTree = (count: number) => ({
  or: Array.from({ length: count }, (_, i) => ({
    performed: { name: `event_${i}`, filters: [{ name: 'path', operator: 'is', value: [`/page/${i}`] }] },
  })),
})

const resourceOf = (path: string): AnyResource => {
  const route = ROUTES.find((candidate) => candidate.path === `/insights/:projectId/${path}`)
  assert.ok(route, path)
  return route.resource
}

const QUESTIONS: { name: string; resource: AnyResource; more?: Record<string, string> }[] = [
  { name: 'metrics', resource: resourceOf('metrics') },
  { name: 'pages', resource: resourceOf('pages') },
  { name: 'sessions', resource: resourceOf('sessions') },
  { name: 'entry pages', resource: resourceOf('pages/entry_exit'), more: { mode: 'entry' } },
  { name: 'exit pages', resource: resourceOf('pages/entry_exit'), more: { mode: 'exit' } },
  { name: 'a breakdown', resource: resourceOf('country') },
  { name: 'paths', resource: resourceOf('paths') },
]

const raw = (count: number, more: Record<string, string> = {}) => ({
  startDate: '2024-03-01',
  endDate: '2024-03-05',
  ...more,
  filters: JSON.stringify(performedTree(count)),
})

/** Bytes of the longest statement the question runs, compiled with a settled day (what the gateway runs). */
function bytesAt(resource: AnyResource, count: number, more?: Record<string, string>): number {
  return Math.max(
    ...statementsOf(resource, raw(count, more), SHOP_SCOPE, true, SETTLED).map(({ compiled }) => Buffer.byteLength(compiled.sql)),
  )
}

/** Bytes of breakdowns asked together (one statement of their grouping sets). */
function joinedBytesAt(count: number): number {
  const members = dimensions
    .slice(0, 3)
    .map((resource) => ({ resource: resource.name, query: prepare(resource, raw(count), SHOP_SCOPE).query }))
  const joins = dimensions[0].joins
  assert.ok(joins)
  return Buffer.byteLength(joins.compile(members, SETTLED).sql)
}

/** Linear: the bytes 2n..4n leaves add are twice what n..2n add (a little more as leaf numbers gain digits). */
function assertLinear(name: string, bytes: (count: number) => number): void {
  const [at6, at12, at24] = [6, 12, 24].map(bytes)
  const growth = (at24 - at12) / (at12 - at6)
  assert.ok(growth < 2.2, `${name}: ${at6} -> ${at12} -> ${at24} bytes, the second doubling adds ${growth.toFixed(2)}× the first`)
  const atCap = bytes(MAX_TREE_LEAVES / 2)
  assert.ok(atCap < MAX_QUERY_SIZE / 4, `${name}: ${atCap} bytes at the leaf cap`)
}

describe('filter tree SQL size', () => {
  for (const { name, resource, more } of QUESTIONS) {
    it(`grows linearly with the performed leaves: ${name}`, () => assertLinear(name, (count) => bytesAt(resource, count, more)))
  }
  it('grows linearly with the performed leaves: breakdowns asked together', () => assertLinear('breakdowns together', joinedBytesAt))
})
