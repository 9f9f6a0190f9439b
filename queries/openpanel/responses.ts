// Response bodies of OpenPanel's analytics routes (queries/openpanel/): OpenPanel's shapes, with the rows
// of the Quarry answers they come from.
import { DIMENSIONS } from '../core/registry'
import { instant, nullable, text, type RouteResponse } from '../core/responses'
import { dimensionResponse, metricsResponse, pagesResponse } from '../insights/responses'
import { exportedEvent } from '../export/responses'
import { TRAFFIC_BREAKDOWNS, type TrafficRoute } from './traffic'

const json = (schema: object): RouteResponse['content'] => ({ 'application/json': { schema } })
const object = (properties: Record<string, object>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
})
const count = { type: 'integer', minimum: 0 }

type Figures = { properties: Record<string, object> }
const metricsBody = metricsResponse.content['application/json'].schema as {
  properties: { metrics: Figures; previous: object; change: object; series: object }
}
const { metrics: totals, previous, change } = metricsBody.properties

/** `/metrics`' totals, with (`compare` only) their `previous` and `change` among them. */
const summary = { ...totals, properties: { ...totals.properties, previous, change } }

export const overviewResponse: RouteResponse = {
  description:
    "The window's session metrics and revenue, and a zero-filled series (by day unless `interval` says otherwise); with `compare`, `summary` and each point gain `previous` and `change`",
  cacheable: true,
  content: json(
    object({
      summary,
      series: metricsBody.properties.series,
      interval: { type: 'string', enum: ['hour', 'day', 'week', 'month'] },
      startDate: { ...instant, description: "The window's start" },
      endDate: { ...instant, description: "The window's end (excluded)" },
    }),
  ),
}

export const activeUsersResponse: RouteResponse = {
  description: 'Per local day of the window, the distinct visitors active in the `days` days up to it',
  cacheable: true,
  content: json(
    object({
      window_days: { type: 'integer', minimum: 1 },
      label: { ...text, description: 'DAU, WAU, MAU or "<days>d active"' },
      series: { type: 'array', items: object({ date: { type: 'string', format: 'date' }, users: count }) },
    }),
  ),
}

export const topPagesResponse: RouteResponse = {
  ...pagesResponse,
  description: 'Every page of the window (up to `limit`), most sessions first; with `compare`, each gains `previous` and `change`',
}

const performedPage = object({
  origin: text,
  path: text,
  title: text,
  sessions: count,
  pageviews: count,
  avg_duration: nullable({ type: 'number', description: 'Minutes from a view to the next one; null when no view has one' }),
  bounce_rate: nullable({ type: 'number', description: 'Percent of the sessions entering here that bounced; null when none entered' }),
  seo_signals: object({ high_bounce: { type: 'boolean' }, low_engagement: { type: 'boolean' }, good_landing_page: { type: 'boolean' } }),
})

export const pagePerformanceResponse: RouteResponse = {
  description: 'The first `limit` pages in the order asked, with how many there are and OpenPanel’s signals',
  content: json(object({ total_pages: count, shown: count, pages: { type: 'array', items: performedPage } })),
}

/** A traffic route's rows: those of any breakdown it offers (a `prefix` where one has it). */
export function trafficResponse(route: TrafficRoute): RouteResponse {
  const rows = TRAFFIC_BREAKDOWNS[route].map(
    (name) => (dimensionResponse(name).content['application/json'].schema as { items: object }).items,
  )
  const prefixed = TRAFFIC_BREAKDOWNS[route].some((name) => 'prefix' in DIMENSIONS[name])
  return {
    description: `Sessions by the ${route} breakdown asked (\`breakdown\`), most sessions first; with \`compare\`, each row gains \`previous\` and \`change\``,
    cacheable: true,
    paged: true,
    content: json({ type: 'array', items: prefixed ? { anyOf: rows } : rows[0] }),
  }
}

const exportedProperties = (exportedEvent as { properties: Record<string, object> }).properties

export const engagementResponse: RouteResponse = {
  description: 'Identified visitors by days since their last event, and in bands',
  cacheable: true,
  content: json(
    object({
      summary: object({
        total_identified_users: count,
        active_last_7_days: count,
        active_8_to_14_days: count,
        active_15_to_30_days: count,
        inactive_31_to_60_days: count,
        churned_60_plus_days: count,
      }),
      distribution: { type: 'array', items: object({ days: { type: 'integer' }, users: count }) },
    }),
  ),
}

/** An event row by the events table's column names (queries/openpanel/events.ts). */
const eventRow = object({
  id: exportedProperties.id,
  name: text,
  device_id: text,
  profile_id: text,
  session_id: text,
  project_id: text,
  created_at: instant,
  path: text,
  duration: exportedProperties.duration,
  city: text,
  country: text,
  os: text,
  browser: text,
  properties: exportedProperties.properties,
  region: text,
  latitude: exportedProperties.latitude,
  longitude: exportedProperties.longitude,
  device: text,
  brand: text,
  model: text,
  os_version: text,
  browser_version: text,
  referrer: text,
  referrer_name: text,
  referrer_type: text,
  utm_source: text,
  utm_medium: text,
  utm_campaign: text,
  utm_term: text,
  utm_content: text,
  sdk_name: text,
  sdk_version: text,
  imported_at: exportedProperties.importedAt,
  origin: text,
  title: text,
  revenue: exportedProperties.revenue,
  groups: exportedProperties.groups,
})

export const eventsResponse: RouteResponse = {
  description: "The window's newest events (ties by id), every column",
  cacheable: true,
  content: json({ type: 'array', items: eventRow }),
}
