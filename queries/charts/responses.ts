// Response body of `GET /export/charts` (shaped by queries/charts/chart-shape.ts).
import { instant, nullable, type RouteResponse } from '../core/responses'

const value = nullable({ type: 'number', description: 'Two decimals; null where nothing was measured' })

const comparison = {
  type: 'object',
  description: 'The previous window: its value and the signed percent change to the current one',
  additionalProperties: false,
  required: ['value', 'diff', 'state'],
  properties: {
    value,
    diff: nullable({ type: 'number', description: 'Signed percent change; null when the previous value is 0 or null' }),
    state: { type: 'string', enum: ['positive', 'negative', 'neutral'] },
  },
}

const summary = {
  sum: value,
  average: value,
  min: value,
  max: value,
}

const series = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'names', 'event', 'metrics', 'data'],
  properties: {
    id: {
      type: 'string',
      description:
        "The item letter, with `-<rank>` for a breakdown group (a formula's groups, the union of those its series kept, rank by their sum: largest first, null last)",
    },
    names: { type: 'array', items: { type: 'string' }, description: 'Display name, then the group labels' },
    event: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name', 'breakdowns'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        breakdowns: { type: 'object', additionalProperties: { type: 'string' }, description: 'Breakdown name -> this group label' },
      },
    },
    metrics: {
      type: 'object',
      additionalProperties: false,
      required: Object.keys(summary),
      properties: { ...summary, previous: comparison },
    },
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['date', 'count'],
        properties: { date: { ...instant, description: 'Start of the bucket' }, count: value, previous: comparison },
      },
    },
  },
}

export const chartResponse: RouteResponse = {
  description: 'One zero-filled line per series (and breakdown group), with totals',
  cacheable: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['series', 'metrics'],
        properties: {
          series: { type: 'array', items: series },
          metrics: { type: 'object', additionalProperties: false, required: Object.keys(summary), properties: summary },
        },
      },
    },
  },
}
