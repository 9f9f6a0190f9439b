// Every data route of the gateway, in one greppable table.
import type { Resource } from '../queries/pipeline'
import { live } from '../queries/live'

export interface Route {
  path: string
  summary: string
  resource: Resource<any>
}

export const ROUTES: Route[] = [{ path: '/insights/:projectId/live', summary: 'Visitors active in the last 5 minutes', resource: live }]
