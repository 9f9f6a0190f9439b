// The routes that docs/api/filters.md and docs/openpanel.md say take filter trees are the routes whose
// parameters accept one: each route of the routes table is asked to parse a tree, without an engine.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { QueryError } from '../../queries/core/errors'
import type { Scope } from '../../queries/core/pipeline'
import { dimensions } from '../../queries/insights/dimensions'
import { ROUTES, type Route } from '../../server/routes/routes'

const ROOT = path.join(__dirname, '..', '..')
const TREE = JSON.stringify({
  or: [{ name: 'country', operator: 'is', value: ['DE'] }, { not: { name: 'device', operator: 'is', value: ['mobile'] } }],
})
const scope: Scope = {
  project: { id: 'p', name: 'p', timezone: 'UTC' },
  now: new Date('2024-06-01T00:00:00Z'),
  sessionLookbackMs: 86_400_000,
}
const BREAKDOWNS = new Set(dimensions.map((resource) => `/${resource.name}`))

/** A route's path after its project (`/insights/:projectId/pages/entry_exit` -> `/pages/entry_exit`). */
const shortPath = (route: Route) => route.path.replace(/^\/insights\/:projectId/, '')

/** Whether the route's parameters take a tree: parsing one gives no issue about `filters` (other issues, e.g. a missing `mode`, aside). */
function takesTree(route: Route): boolean {
  const raw = { filters: TREE, ...(route.projectFrom === 'query' ? { projectId: 'p' } : {}) }
  try {
    route.resource.parse(raw, scope)
    return true
  } catch (error) {
    if (!(error instanceof QueryError)) throw error
    return !error.issues.some((issue) => issue.path[0] === 'filters')
  }
}

/**
 * The routes a page names in its paragraph that begins "Filter trees are taken by": each backquoted
 * path, and every breakdown route when it says "every breakdown".
 */
function documentedTreeRoutes(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
  const paragraph = text.split(/\n\s*\n/).find((part) => part.includes('Filter trees are taken by'))
  assert.ok(paragraph, `${file} has a paragraph "Filter trees are taken by ..."`)
  const named = [...paragraph.matchAll(/`(\/[a-z_/]+)`/g)].map((match) => match[1])
  return [...new Set([...named, ...(/every\s+breakdown/.test(paragraph) ? BREAKDOWNS : [])])].sort()
}

describe('docs: the routes that take filter trees', () => {
  const accepted = ROUTES.filter(takesTree).map(shortPath).sort()

  it('are found in the code: session questions take them, funnels and discovery do not', () => {
    for (const route of ['/metrics', '/pages', '/sessions', '/pages/entry_exit', '/paths', '/referrer'])
      assert.ok(accepted.includes(route), route)
    for (const route of ['/funnel', '/retention', '/live', '/events/names', '/export/events']) assert.ok(!accepted.includes(route), route)
  })

  for (const file of ['docs/api/filters.md', 'docs/openpanel.md']) {
    it(`${file} lists exactly them`, () => {
      assert.deepEqual(documentedTreeRoutes(file), accepted)
    })
  }
})
