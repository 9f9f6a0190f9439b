// The startup check: the real SQL files and routes pass; a route whose compiler leaves a placeholder
// unbound or a marker unfilled, or that no example request reaches, stops startup with its name.
import assert from 'node:assert/strict'
import { SEGMENTS } from '../../queries/charts/chart-params'
import { compileTemplate, type CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import type { Resource, Scope } from '../../queries/core/pipeline'
import { ROUTES, type Route } from '../../server/routes/routes'
import { EXAMPLE_QUERIES, examplesFor } from '../../server/routes/examples'
import { checkQueries, findRouteProblems, findUnfilledMarkers } from '../../server/http/startup-check'
import { liveResponse } from '../../queries/insights/responses'

const scope: Scope = {
  project: { id: 'shop', name: 'Shop', timezone: 'UTC' },
  now: new Date('2024-03-31T12:00:00Z'),
  sessionLookbackMs: 86_400_000,
}

const LIVE = () => compileTemplate('insights/live.sql', { projectId: 'p', since: 'x', now: 'y' })

/** A resource route taking no parameters (unless a schema is given) with the given parse and compile steps. */
function probeRoute(path: string, steps: { compile?: () => CompiledQuery; parse?: () => unknown; schema?: object }): Route {
  const resource: Resource<unknown> = {
    name: 'probe',
    schema: steps.schema ?? { type: 'object', additionalProperties: false, properties: {} },
    parse: steps.parse ?? (() => ({})),
    plan: (query) => query,
    compile: steps.compile ?? LIVE,
    shape: () => ({ body: null }),
  }
  return { path, summary: 'probe', resource, response: liveResponse }
}

describe('startup check', () => {
  it('passes the gateway as it is', () => {
    assert.doesNotThrow(() => checkQueries())
    assert.deepEqual(findUnfilledMarkers(), [])
  })

  it('reaches every route with at least one example request, each with all it requires', () => {
    for (const route of ROUTES) assert.ok(examplesFor(route).length > 0, route.path)
    const chart = ROUTES.find((route) => route.path === '/export/charts')
    assert.ok(chart && examplesFor(chart).every((query) => 'series' in query), 'a chart example always has series')
    const exportEvents = ROUTES.find((route) => route.path === '/export/events')
    assert.ok(exportEvents && examplesFor(exportEvents).some((query) => query.format === 'csv'), 'the stream is compiled too')
  })

  it('names a route whose compiler leaves a placeholder unbound', () => {
    const broken = probeRoute('/insights/:projectId/broken', {
      compile: () => compileTemplate('insights/live.sql', { projectId: 'p', since: 'x' }),
    })
    assert.deepEqual(findRouteProblems([broken], scope), [
      '/insights/:projectId/broken?: Template insights.live (sql/insights/live.sql): unbound placeholders [now], unused params []',
    ])
    assert.throws(
      () => checkQueries([broken]),
      /routes cannot compile their example requests:\n {2}\/insights\/:projectId\/broken\?: Template insights\.live \(sql\/insights\/live\.sql\): unbound placeholders \[now\]/,
    )
  })

  it('names a route whose compiler leaves a marker unfilled', () => {
    const broken = probeRoute('/insights/:projectId/unfilled', {
      compile: () => compileTemplate('export/count.sql', { projectId: 'p', start: 'a', end: 'b' }),
    })
    assert.deepEqual(findRouteProblems([broken], scope), [
      '/insights/:projectId/unfilled?: Template export.count (sql/export/count.sql): marker @conditions not filled',
    ])
  })

  it('names a route no example request reaches', () => {
    const unreached = probeRoute('/insights/:projectId/unreached', {
      schema: { type: 'object', required: ['nowhere'], properties: { nowhere: { type: 'string' } } },
    })
    assert.deepEqual(findRouteProblems([unreached], scope), [
      '/insights/:projectId/unreached: no example request reaches this route (add one to EXAMPLE_QUERIES)',
    ])
  })

  it('lists the issues of an example request a route refuses', () => {
    const refusing = probeRoute('/insights/:projectId/picky', {
      parse: () => {
        throw new QueryError('invalid_request', 'bad', [{ path: ['range'], message: 'no' }])
      },
    })
    assert.deepEqual(findRouteProblems([refusing], scope), ['/insights/:projectId/picky?: bad; range: no'])
  })

  it('covers every chart segment of the registry in its examples', () => {
    const series = EXAMPLE_QUERIES.filter((query) => query.series).flatMap((query) => JSON.parse(query.series) as { segment?: string }[])
    for (const segment of SEGMENTS)
      assert.ok(
        series.some((item) => item.segment === segment),
        segment,
      )
  })
})
