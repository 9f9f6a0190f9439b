// The answer of `/table` for /openapi.json: flat rows whose properties are the dimensions and metrics asked.
import { RATE_FIELDS } from '../core/compare'
import type { RouteResponse } from '../core/responses'
import { TABLE_DIMENSIONS, type TABLE_METRICS } from './table-params'

const dimensionValue = { type: ['string', 'null'], description: 'The dimension value; null where it is empty' }

const metricValues = {
  visitors: { type: 'integer', description: "Distinct visitors (profile_id) of the row's sessions" },
  sessions: { type: 'integer' },
  pageviews: { type: 'integer', description: "The sessions' page views (those the filters count)" },
  bounce_rate: { type: 'number', description: 'Percent of sessions with at most one page view, two decimals' },
  avg_session_duration: { type: 'number', description: 'Seconds, two decimals' },
  views_per_session: { type: 'number', description: 'Two decimals' },
  events: { type: 'integer', description: "The sessions' events" },
  revenue: { type: 'number', description: "The sessions' revenue (minor units)" },
  conversion_rate: {
    type: 'number',
    description: "Percent of the row's visitors with one of the row's sessions that performed the goal, two decimals",
  },
} satisfies Record<(typeof TABLE_METRICS)[number], object>

export const tableResponse: RouteResponse = {
  description: 'One page of flat rows: the dimensions asked, then the metrics asked, ordered by `orderBy`',
  cacheable: true,
  paged: true,
  content: {
    'application/json': {
      schema: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...Object.fromEntries(Object.keys(TABLE_DIMENSIONS).map((name) => [name, dimensionValue])),
            ...metricValues,
            previous: {
              type: ['object', 'null'],
              additionalProperties: false,
              properties: metricValues,
              description:
                "With `compare`: the metrics asked over the compared window; null where this row's dimension values have none there",
            },
            change: {
              type: 'object',
              additionalProperties: false,
              properties: Object.fromEntries(
                Object.keys(metricValues).map((name) => [
                  name,
                  { type: ['number', 'null'], description: RATE_FIELDS.has(name) ? 'Difference in points' : 'Percent change' },
                ]),
              ),
              description: 'With `compare`: per metric asked, the change from `previous` (null where it has no value)',
            },
          },
        },
      },
    },
  },
}
