// Every data route of the gateway, in one greppable table.
import { dimensions } from '../queries/dimensions'
import { live } from '../queries/live'
import { metrics } from '../queries/metrics'
import { pages } from '../queries/pages'
import type { Resource } from '../queries/pipeline'

import type { Request, Response } from 'express'
import { exportEventsSchema } from '../queries/export-events'
import type { Runner } from '../queries/run'
import type { Directory } from './directory'
import { serveExportEvents } from './export-events'
import { chart } from '../queries/chart'
import { chartSchema } from '../queries/chart-params'
import { answer } from '../queries/pipeline'
import { resolveQueryProject } from './auth'
import type { ApiClient } from './directory'

/** A pipeline resource whose project is named in the query string (or is the read client's own). */
function serveWithQueryProject(resource: Resource<any>) {
  return async ({ runner, directory, clock }: ServeContext, req: Request, res: Response) => {
    const query = { ...(req.query as Record<string, unknown>) }
    const project = await resolveQueryProject(directory, res.locals.client as ApiClient, query)
    res.locals.projectId = project.id
    const abort = new AbortController()
    res.once('close', () => {
      if (!res.writableFinished) abort.abort()
    })
    const result = await answer(resource, query, { project, now: clock(), sessionLookbackMs: 0 }, runner, { signal: abort.signal, queryId: res.locals.requestId })
    Object.assign(res.locals, { template: result.compiled.template, queryMs: Math.round(result.run.durationMs), ...result.run })
    res.json(result.body)
  }
}

/** A route answered by the standard pipeline (project in the path) ... */
interface ResourceRoute {
  path: string
  summary: string
  resource: Resource<any>
}

/** What a handler route works with. */
export interface ServeContext {
  runner: Runner
  directory: Directory
  clock: () => Date
}

/** ... or by its own handler (streams, or the project named in the query string). */
interface HandlerRoute {
  path: string
  summary: string
  schema: object
  serve(context: ServeContext, req: Request, res: Response): Promise<void>
}

export type Route = ResourceRoute | HandlerRoute

export const isResourceRoute = (route: Route): route is ResourceRoute => 'resource' in route
export const schemaOf = (route: Route): object => (isResourceRoute(route) ? route.resource.schema : route.schema)

export const ROUTES: Route[] = [
  { path: '/insights/:projectId/live', summary: 'Visitors active in the last 5 minutes', resource: live },
  { path: '/insights/:projectId/metrics', summary: 'Session metrics and revenue, with a zero-filled series', resource: metrics },
  { path: '/insights/:projectId/pages', summary: 'Top pages by sessions', resource: pages },
  ...dimensions.map((resource) => ({
    path: `/insights/:projectId/${resource.name}`,
    summary: `Sessions broken down by ${resource.name}`,
    resource,
  })),
  { path: '/export/charts', summary: 'Time series of event series (segments, breakdowns, formulas, previous period)', schema: chartSchema, serve: serveWithQueryProject(chart) },
  { path: '/export/events', summary: 'Raw events: JSON pages (keyset cursor or page) or a stream (ndjson, csv)', schema: exportEventsSchema, serve: serveExportEvents },
]
