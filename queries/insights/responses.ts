// Response bodies of the insights routes (`/insights/:projectId/...`).
import { DIMENSIONS, type Dimension, type DimensionSpec } from '../core/registry'
import { RATE_FIELDS } from '../core/compare'
import { changeSchema, previousSchema } from '../core/compare-responses'
import { attributionProperties, instant, nullable, pageBody, text, type RouteResponse } from '../core/responses'

const json = (schema: object): RouteResponse['content'] => ({ 'application/json': { schema } })

const figureProperties = {
  bounce_rate: { type: 'number', description: 'Percent of sessions with one page view, two decimals' },
  unique_visitors: { type: 'integer' },
  total_sessions: { type: 'integer' },
  avg_session_duration: { type: 'number', description: 'Seconds' },
  total_screen_views: { type: 'integer' },
  views_per_session: { type: 'number' },
  total_revenue: { type: 'number' },
}
const figures = { type: 'object', additionalProperties: false, required: Object.keys(figureProperties), properties: figureProperties }

/** A list row's properties with, under `compare`, `previous` (its `figures`, or null) and `change` (optional: not required). */
function compared(row: Record<string, object>, figureNames: readonly string[]): Record<string, object> {
  const own = Object.fromEntries(figureNames.map((name) => [name, row[name]]))
  return { ...row, previous: previousSchema(own), change: changeSchema(figureNames, RATE_FIELDS) }
}
const bucketProperties = { date: { ...instant, description: 'Start of the bucket' }, ...figureProperties }

export const metricsResponse: RouteResponse = {
  description: 'Totals over the window and one zero-filled entry per bucket',
  cacheable: true,
  content: json({
    type: 'object',
    additionalProperties: false,
    required: ['metrics', 'series'],
    properties: {
      metrics: figures,
      previous: { ...figures, description: 'compare only: the same figures over the compared window' },
      change: changeSchema(Object.keys(figureProperties), RATE_FIELDS),
      series: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['date', ...Object.keys(figureProperties)],
          properties: {
            ...bucketProperties,
            previous: previousSchema(bucketProperties, "compare only: the compared window's bucket of the same rank; null past its last"),
            change: changeSchema(Object.keys(figureProperties), RATE_FIELDS),
          },
        },
      },
    },
  }),
}

export const liveResponse: RouteResponse = {
  description: 'Distinct visitors with an event in the last five minutes',
  cacheable: true,
  content: json({
    type: 'object',
    additionalProperties: false,
    required: ['visitors'],
    properties: { visitors: { type: 'integer', minimum: 0 } },
  }),
}

const pageRow = {
  title: { type: 'string', description: "The page's latest title" },
  origin: { type: 'string' },
  path: { type: 'string' },
  sessions: { type: 'integer' },
  pageviews: { type: 'integer' },
  bounce_rate: nullable({ type: 'number', description: 'Percent; null when no session entered here' }),
  avg_duration: nullable({ type: 'number', description: 'Seconds to the next view; null when no view has one' }),
}

export const pagesResponse: RouteResponse = {
  description: 'One page of rows, most sessions first',
  cacheable: true,
  paged: true,
  content: json({
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: Object.keys(pageRow),
      properties: compared(pageRow, ['sessions', 'pageviews', 'bounce_rate', 'avg_duration']),
    },
  }),
}

/** A breakdown's rows; `prefix` (the country of a region, say) only where the registry gives one. */
export function dimensionResponse(name: Dimension): RouteResponse {
  const spec: DimensionSpec = DIMENSIONS[name]
  const row = {
    ...(spec.prefix ? { prefix: nullable({ type: 'string', description: `The ${spec.prefix}` }) } : {}),
    name: nullable({ type: 'string', description: 'null where the attribute is empty' }),
    sessions: { type: 'integer' },
    pageviews: { type: 'integer' },
    bounce_rate: { type: 'number' },
    avg_session_duration: { type: 'number', description: 'Seconds' },
  }
  return {
    description: 'One page of rows, most sessions first',
    cacheable: true,
    paged: true,
    content: json({
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: Object.keys(row),
        properties: compared(row, ['sessions', 'pageviews', 'bounce_rate', 'avg_session_duration']),
      },
    }),
  }
}

const entryExitRow = {
  origin: { type: 'string' },
  path: { type: 'string' },
  sessions: { type: 'integer', description: 'Sessions that entered (mode=entry) or left (mode=exit) on this page' },
  bounce_rate: { type: 'number', description: 'Percent of those sessions with at most one page view' },
  avg_session_duration: { type: 'number', description: 'Seconds, over those sessions' },
  exit_rate: {
    type: 'number',
    description:
      "mode=exit only: percent of the views of this page, in every session of the window kept by the filters, that were their session's last page view",
  },
}

const { origin: _origin, path: _path, ...entryExitFigures } = entryExitRow

export const entryExitResponse: RouteResponse = {
  description: 'One page of rows, most sessions first (ties by origin, then path)',
  cacheable: true,
  paged: true,
  content: json({
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['origin', 'path', 'sessions', 'bounce_rate', 'avg_session_duration'],
      properties: {
        ...entryExitRow,
        previous: {
          ...previousSchema(
            entryExitFigures,
            'compare only: the same figures over the compared window (exit_rate with mode=exit only); null where this page has none there',
          ),
          required: ['sessions', 'bounce_rate', 'avg_session_duration'],
        },
        change: {
          ...changeSchema(Object.keys(entryExitFigures), RATE_FIELDS),
          required: ['sessions', 'bounce_rate', 'avg_session_duration'],
        },
      },
    },
  }),
}

/** A listed session: the fields of queries/insights/sessions-list.ts, in its order. */
const listedSession = {
  id: { type: 'string', description: 'The session id' },
  profileId: { type: 'string', description: "The first event's profile id (the device id for anonymous visitors)" },
  startedAt: { ...instant, description: 'Its first event' },
  endedAt: { ...instant, description: 'Its last event' },
  duration: { type: 'number', minimum: 0, description: 'Seconds, with millisecond decimals' },
  screenViews: { type: 'integer', minimum: 0 },
  events: { type: 'integer', minimum: 1 },
  bounce: { type: 'boolean', description: 'At most one page view' },
  entryOrigin: text,
  entryPath: text,
  exitOrigin: nullable({ type: 'string', description: 'Its last page view; null without page views' }),
  exitPath: nullable({ type: 'string', description: 'Its last page view; null without page views' }),
  ...attributionProperties,
  country: text,
  region: text,
  city: text,
  device: text,
  browser: text,
  os: text,
}

export const sessionsResponse: RouteResponse = {
  description: 'One page of sessions, newest start first (ties by id, descending)',
  cacheable: true,
  content: json(
    pageBody(
      { nextCursor: nullable({ type: 'string', description: 'The `cursor` of the next page; null on the last one' }) },
      {
        type: 'array',
        items: { type: 'object', additionalProperties: false, required: Object.keys(listedSession), properties: listedSession },
      },
    ),
  ),
}
