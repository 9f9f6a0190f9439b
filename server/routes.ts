// Every data route of the gateway, in one greppable table.
import { dimensions } from '../queries/dimensions'
import { live } from '../queries/live'
import { metrics } from '../queries/metrics'
import { pages } from '../queries/pages'
import type { Resource } from '../queries/pipeline'

export interface Route {
  path: string
  summary: string
  resource: Resource<any>
}

export const ROUTES: Route[] = [
  { path: '/insights/:projectId/live', summary: 'Visitors active in the last 5 minutes', resource: live },
  { path: '/insights/:projectId/metrics', summary: 'Session metrics and revenue, with a zero-filled series', resource: metrics },
  { path: '/insights/:projectId/pages', summary: 'Top pages by sessions', resource: pages },
  ...dimensions.map((resource) => ({
    path: `/insights/:projectId/${resource.name}`,
    summary: `Sessions broken down by ${resource.name}`,
    resource,
  })),
]
