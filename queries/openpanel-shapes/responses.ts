// Response bodies of the routes where OpenPanel's shape and Quarry's collide: OpenPanel's by default, Quarry's
// with `detail=true` (queries/core/detail.ts), so a body is one of the two.
import type { RouteResponse } from '../core/responses'

/** A route's answer: OpenPanel's `brief` body, or with `detail=true` Quarry's (`detailed`, the route's own response). */
export function briefOrDetailed(brief: { description: string; schema: object }, detailed: RouteResponse): RouteResponse {
  const detailedSchema = detailed.content['application/json'].schema
  return {
    ...detailed,
    description: `${brief.description}; with detail=true, ${detailed.description[0].toLowerCase()}${detailed.description.slice(1)}`,
    content: { 'application/json': { schema: { anyOf: [brief.schema, detailedSchema] } } },
  }
}

const strings = { type: 'array', items: { type: 'string' } }
const count = { type: 'integer', minimum: 1 }

export const namesBody = { description: "One page of the window's event names, most events first (OpenPanel's shape)", schema: strings }

export const propertiesBody = {
  description: "The columns events are filtered by, and one page of the window's property keys, most events first (OpenPanel's shape)",
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['columns', 'properties'],
    properties: {
      columns: strings,
      properties: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['property_key', 'event_name', 'count'],
          properties: {
            property_key: { type: 'string', description: 'The key, bare' },
            event_name: { type: ['string', 'null'], description: 'The asked event name; null when none was asked (every name counted)' },
            count: { ...count, description: 'Events of the window carrying the key (Quarry)' },
          },
        },
      },
    },
  },
}

export const propertyValuesBody = {
  description: "One page of the property's values, most events first (OpenPanel's shape)",
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['event', 'property', 'values', 'counts'],
    properties: {
      event: { type: ['string', 'null'], description: 'The asked event name; null when none was asked' },
      property: { type: 'string', description: 'The key, bare' },
      values: strings,
      counts: { type: 'array', items: count, description: 'Events of the window holding each value, in the order of `values` (Quarry)' },
    },
  },
}

const text = { type: 'string' }
const maybeText = { type: ['string', 'null'] }
const sessionFields: Record<string, object> = {
  id: text,
  profile_id: text,
  event_count: { type: 'integer', minimum: 1 },
  screen_view_count: { type: 'integer', minimum: 0 },
  entry_origin: text,
  entry_path: text,
  exit_origin: { ...maybeText, description: 'Origin of the last page view; null without page views' },
  exit_path: { ...maybeText, description: 'Path of the last page view; null without page views' },
  created_at: { type: 'string', format: 'date-time', description: 'Start, ISO 8601 with the offset of the request timezone' },
  ended_at: { type: 'string', format: 'date-time', description: 'End, ISO 8601 with the offset of the request timezone' },
  duration: { type: 'integer', minimum: 0, description: 'End - start, milliseconds' },
  is_bounce: { type: 'boolean', description: 'At most one page view' },
  referrer: text,
  referrer_name: text,
  referrer_type: text,
  utm_source: text,
  utm_medium: text,
  utm_campaign: text,
  utm_term: text,
  utm_content: text,
  country: text,
  region: text,
  city: text,
  device: text,
  browser: text,
  os: text,
}

export const sessionsBody = {
  description: "One page of sessions, newest start first, under OpenPanel's names (OpenPanel's shape; the next page in `Link`)",
  schema: {
    type: 'array',
    items: { type: 'object', additionalProperties: false, required: Object.keys(sessionFields), properties: sessionFields },
  },
}

export const weeklyRetentionBody = {
  description:
    "Per week (Monday) with a visitor active in the window, oldest first: its active visitors and those active again the week after (OpenPanel's shape)",
  schema: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['date', 'active_users', 'retained_users', 'retention'],
      properties: {
        date: {
          type: 'string',
          format: 'date-time',
          description: "The week's Monday midnight, ISO 8601 with the offset of the request timezone",
        },
        active_users: { type: 'integer', minimum: 1, description: 'Visitors with an event of the window in the week' },
        retained_users: { type: 'integer', minimum: 0, description: 'Of them, those with an event in the week after' },
        retention: { type: 'number', minimum: 0, maximum: 100, description: '100 x retained_users / active_users, 2 decimals' },
      },
    },
  },
}

const counts = { type: 'array', items: { type: 'integer', minimum: 0 } }
export const retentionCohortBody = {
  description: "A weighted average, then each cohort with visitors, oldest first, values per period 0..periods (OpenPanel's shape)",
  schema: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['cohort_interval', 'sum', 'values', 'percentages'],
      properties: {
        cohort_interval: { type: 'string', description: "The cohort's first instant (ISO 8601), or `Weighted Average`" },
        sum: { type: 'integer', minimum: 0, description: "The cohort's visitors (the average row: the mean cohort size, rounded)" },
        values: { ...counts, description: 'Visitors counted in each period; 0 in a period not begun yet' },
        percentages: {
          type: 'array',
          items: { type: 'number', minimum: 0, maximum: 1 },
          description: 'values / sum, a fraction with 2 decimals',
        },
      },
    },
  },
}

const userFlowNode = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'label', 'step', 'value', 'percentage', 'exits'],
  properties: {
    id: { type: 'string', description: '`<label>::step<step>`' },
    label: { type: 'string', description: 'The event name' },
    step: { type: 'integer', minimum: 1 },
    value: { type: 'integer', minimum: 1, description: 'Sessions whose flow has this event at this step' },
    percentage: { type: 'number', minimum: 0, maximum: 100, description: '100 x value / sessions, 2 decimals' },
    exits: { type: 'integer', minimum: 0, description: 'Of them, those whose flow ends there (Quarry)' },
  },
}

export const userFlowResponse = {
  description: "The sessions' flows around their first startEvent as a sankey (OpenPanel's shape)",
  cacheable: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['mode', 'startEvent', 'sessions', 'node_count', 'link_count', 'nodes', 'links'],
        properties: {
          mode: { type: 'string', enum: ['after', 'before', 'between'] },
          startEvent: { type: 'string' },
          endEvent: { type: 'string', description: 'With mode=between' },
          sessions: { type: 'integer', minimum: 0, description: 'Sessions with a flow (Quarry)' },
          node_count: { type: 'integer', minimum: 0 },
          link_count: { type: 'integer', minimum: 0 },
          nodes: { type: 'array', items: userFlowNode },
          links: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['source', 'target', 'value'],
              properties: {
                source: { type: 'string', description: 'A node id' },
                target: { type: 'string', description: 'A node id of the next step' },
                value: { type: 'integer', minimum: 1, description: 'Sessions whose flow goes from source to target' },
              },
            },
          },
        },
      },
    },
  },
}
