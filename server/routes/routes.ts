// Every data route of the gateway, in one greppable table, and how a route's query string is read: what the
// HTTP app serves and what the admin code (explain, the SQL catalogue) compiles, so both import it from here.
import { chart } from '../../queries/charts/chart'
import { dimensions } from '../../queries/insights/dimensions'
import { eventNamesResponse, eventPropertiesResponse, eventPropertyValuesResponse } from '../../queries/discovery/responses'
import { exportEvents } from '../../queries/export/export-resource'
import { funnel } from '../../queries/behaviour/funnel'
import { paths } from '../../queries/behaviour/paths'
import { live } from '../../queries/insights/live'
import { metrics } from '../../queries/insights/metrics'
import { pages } from '../../queries/insights/pages'
import { entryExit } from '../../queries/insights/entry-exit'
import type { AnyResource } from '../../queries/core/pipeline'
import { openPanelEventNames, openPanelEventProperties, openPanelEventPropertyValues } from '../../queries/openpanel-shapes/discovery'
import { openPanelRetention, openPanelRetentionCohort } from '../../queries/openpanel-shapes/retention'
import { openPanelSessions } from '../../queries/openpanel-shapes/sessions'
import { userFlow } from '../../queries/openpanel-shapes/user-flow'
import {
  briefOrDetailed,
  namesBody,
  propertiesBody,
  propertyValuesBody,
  retentionCohortBody,
  sessionsBody,
  userFlowResponse,
  weeklyRetentionBody,
} from '../../queries/openpanel-shapes/responses'
import { activeUsers } from '../../queries/openpanel/active-users'
import { engagement } from '../../queries/openpanel/engagement'
import { events } from '../../queries/openpanel/events'
import { overview } from '../../queries/openpanel/overview'
import { pagePerformance, topPages } from '../../queries/openpanel/pages'
import { trafficRoutes } from '../../queries/openpanel/traffic'
import {
  activeUsersResponse,
  engagementResponse,
  eventsResponse,
  overviewResponse,
  pagePerformanceResponse,
  topPagesResponse,
  trafficResponse,
} from '../../queries/openpanel/responses'
import type { Dimension } from '../../queries/core/registry'
import { chartResponse } from '../../queries/charts/responses'
import type { RouteResponse } from '../../queries/core/responses'
import { exportEventsResponse } from '../../queries/export/responses'
import { funnelResponse, pathsResponse, retentionResponse } from '../../queries/behaviour/responses'
import {
  dimensionResponse,
  entryExitResponse,
  liveResponse,
  metricsResponse,
  pagesResponse,
  sessionsResponse,
} from '../../queries/insights/responses'
import { table } from '../../queries/insights/table'
import { tableResponse } from '../../queries/insights/table-response'
import { group, groups, groupTypes } from '../../queries/people/groups'
import { profile } from '../../queries/people/profile'
import { profileMetrics } from '../../queries/people/profile-metrics'
import { profileSessions } from '../../queries/people/profile-sessions'
import { profiles } from '../../queries/people/profiles'
import {
  groupResponse,
  groupsResponse,
  groupTypesResponse,
  profileMetricsResponse,
  profileResponse,
  profileSessionsResponse,
  profilesResponse,
} from '../../queries/people/responses'

/**
 * A route and the resource that answers it. Its project is the `:projectId` path segment, or with
 * `projectFrom: 'query'` the `projectId` parameter (a read client's own project by default).
 */
export interface Route {
  path: string
  summary: string
  resource: AnyResource
  projectFrom?: 'path' | 'query'
  /** The 200 answer, for /openapi.json. */
  response: RouteResponse
  /** The breakdown a breakdown route answers: one registry entry, one shared template (the SQL catalogue prints them on one page). */
  breakdown?: Dimension
}

/** How the gateway parses query strings; `explain` resolves requests with the same setting. */
export const QUERY_PARSER = 'simple'

/**
 * What a route's resource reads: the query string, and the path's values other than the project (a profile's
 * or a group's id), which its schema names as parameters of its own; a query parameter of the same name
 * gives way to the path's.
 */
export function parametersOf(query: Record<string, unknown>, params: Record<string, string | string[]>): Record<string, unknown> {
  const { projectId: _project, ...values } = params
  return { ...query, ...values }
}

export const resourceOf = (route: Route): AnyResource => route.resource
export const schemaOf = (route: Route): object => route.resource.schema
/** Whether the route's answer is one statement's rows, never a stream (so it goes through the result cache). */
export const answersWithOneStatement = ({ resource }: Route): boolean => !resource.stream && !resource.alongside && !resource.follow

/** The breakdown routes (`/referrer`, `/country`, ...), in the registry's order. */
export const BREAKDOWN_ROUTES: Route[] = dimensions.map((resource) => ({
  path: `/insights/:projectId/${resource.name}`,
  summary: `Sessions broken down by ${resource.name}`,
  resource,
  response: dimensionResponse(resource.name as Dimension),
  breakdown: resource.name as Dimension,
}))

/** OpenPanel's analytics routes Quarry answers through its own resources (queries/openpanel/, docs/openpanel.md). */
const OPENPANEL_ANALYTICS_ROUTES: Route[] = [
  {
    path: '/insights/:projectId/overview',
    summary: "OpenPanel's overview: session metrics and a series",
    resource: overview,
    response: overviewResponse,
  },
  {
    path: '/insights/:projectId/active_users',
    summary: 'Rolling active visitors per day (DAU, WAU, MAU)',
    resource: activeUsers,
    response: activeUsersResponse,
  },
  {
    path: '/insights/:projectId/pages/top',
    summary: 'Every page of the window by sessions',
    resource: topPages,
    response: topPagesResponse,
  },
  {
    path: '/insights/:projectId/pages/performance',
    summary: 'Pages in any order with their count and signals',
    resource: pagePerformance,
    response: pagePerformanceResponse,
  },
  ...trafficRoutes.map(({ route, resource }) => ({
    path: `/insights/:projectId/traffic/${route}`,
    summary: `Sessions by a ${route} breakdown`,
    resource,
    response: trafficResponse(route),
  })),
  {
    path: '/insights/:projectId/engagement',
    summary: 'Identified visitors by days since their last event',
    resource: engagement,
    response: engagementResponse,
  },
  { path: '/insights/:projectId/events', summary: "The window's newest events, every column", resource: events, response: eventsResponse },
]

export const ROUTES: Route[] = [
  { path: '/insights/:projectId/live', summary: 'Visitors active in the last 5 minutes', resource: live, response: liveResponse },
  {
    path: '/insights/:projectId/metrics',
    summary: 'Session metrics and revenue, with a zero-filled series',
    resource: metrics,
    response: metricsResponse,
  },
  { path: '/insights/:projectId/pages', summary: 'Top pages by sessions', resource: pages, response: pagesResponse },
  {
    path: '/insights/:projectId/sessions',
    summary: "The window's sessions, newest first, as keyset pages",
    resource: openPanelSessions,
    response: { ...briefOrDetailed(sessionsBody, sessionsResponse), paged: true },
  },
  {
    path: '/insights/:projectId/pages/entry_exit',
    summary: 'Sessions by entry page or exit page, with exit rates',
    resource: entryExit,
    response: entryExitResponse,
  },
  ...BREAKDOWN_ROUTES,
  {
    path: '/insights/:projectId/events/names',
    summary: 'Event names of the window with their events and last time seen',
    resource: openPanelEventNames,
    response: briefOrDetailed(namesBody, eventNamesResponse),
  },
  {
    path: '/insights/:projectId/events/properties',
    summary: 'Property keys of the window with the events carrying each',
    resource: openPanelEventProperties,
    response: briefOrDetailed(propertiesBody, eventPropertiesResponse),
  },
  {
    path: '/insights/:projectId/events/property_values',
    summary: "Values of one property key in the window with each one's events",
    resource: openPanelEventPropertyValues,
    response: briefOrDetailed(propertyValuesBody, eventPropertyValuesResponse),
  },
  {
    path: '/insights/:projectId/funnel',
    summary: 'Sessions or visitors reaching each step of a funnel, optionally per breakdown value',
    resource: funnel,
    response: funnelResponse,
  },
  {
    path: '/insights/:projectId/retention',
    summary: 'Visitors active each week and again the week after (with detail=true: cohorts coming back in the periods after)',
    resource: openPanelRetention,
    response: briefOrDetailed(weeklyRetentionBody, retentionResponse),
  },
  {
    path: '/insights/:projectId/retention/cohort',
    summary: "Cohorts coming back in the weeks after, with a weighted average, in OpenPanel's shape",
    resource: openPanelRetentionCohort,
    response: briefOrDetailed(retentionCohortBody, retentionResponse),
  },
  {
    path: '/insights/:projectId/user_flow',
    summary: "Where sessions go after an event, as OpenPanel's sankey (Quarry's paths over event names)",
    resource: userFlow,
    response: userFlowResponse,
  },
  {
    path: '/insights/:projectId/paths',
    summary: 'Where sessions go: nodes per step (pages or events) and the links between them',
    resource: paths,
    response: pathsResponse,
  },
  // People: profiles and groups, with OpenPanel's parameters and shapes.
  { path: '/insights/:projectId/profiles', summary: 'Profiles kept by the filters', resource: profiles, response: profilesResponse },
  {
    path: '/insights/:projectId/profiles/:profileId',
    summary: 'A profile and its newest events',
    resource: profile,
    response: profileResponse,
  },
  {
    path: '/insights/:projectId/profiles/:profileId/sessions',
    summary: "A profile's sessions, newest first, as keyset pages",
    resource: profileSessions,
    response: profileSessionsResponse,
  },
  {
    path: '/insights/:projectId/profiles/:profileId/metrics',
    summary: "A profile's events and sessions in figures",
    resource: profileMetrics,
    response: profileMetricsResponse,
  },
  { path: '/insights/:projectId/groups/types', summary: 'The types of the groups', resource: groupTypes, response: groupTypesResponse },
  { path: '/insights/:projectId/groups', summary: 'Groups by type and search', resource: groups, response: groupsResponse },
  {
    path: '/insights/:projectId/groups/:groupId',
    summary: 'A group and its newest members',
    resource: group,
    response: groupResponse,
  },
  {
    path: '/export/charts',
    summary: 'Time series of event series (segments, breakdowns, formulas, previous period)',
    resource: chart,
    projectFrom: 'query',
    response: chartResponse,
  },
  {
    path: '/export/events',
    summary: 'Raw events: JSON pages (keyset cursor or page) or a stream (ndjson, csv)',
    resource: exportEvents,
    projectFrom: 'query',
    response: exportEventsResponse,
  },
  {
    path: '/insights/:projectId/table',
    summary: 'Sessions grouped by 1 to 3 dimensions, with the metrics asked, as flat rows',
    resource: table,
    response: tableResponse,
  },
  ...OPENPANEL_ANALYTICS_ROUTES,
]
