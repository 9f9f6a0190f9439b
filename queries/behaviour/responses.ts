// Response bodies of the behaviour routes (funnel, retention, paths), for /openapi.json and the tests.
import { RATE_FIELDS } from '../core/compare'
import { changeSchema } from '../core/compare-responses'
import { instant, nullable, type RouteResponse } from '../core/responses'

const json = (schema: object): RouteResponse['content'] => ({ 'application/json': { schema } })
const object = (properties: Record<string, object>, required = Object.keys(properties)) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
})
const count = { type: 'integer', minimum: 0 }
const rate = { type: 'number', minimum: 0, maximum: 100, description: 'Percent, two decimals' }

const funnelStep = object({
  step: { type: 'integer', minimum: 1 },
  eventName: { type: 'string' },
  users: { ...count, description: 'Groups (sessions or visitors) reaching this step' },
  conversionRateFromStart: rate,
  dropoffPercent: nullable({
    type: 'number',
    description: 'Percent lost before the next step; null on the last step and where no group reached this one',
  }),
  isHighestDropoff: { type: 'boolean' },
})
const funnelTotals = {
  steps: { type: 'array', items: funnelStep },
  totalUsers: count,
  completedUsers: count,
  overallConversionRate: rate,
}

const STEP_FIGURES = ['users', 'conversionRateFromStart', 'dropoffPercent']

export const funnelResponse: RouteResponse = {
  description: 'Groups reaching each step; with a breakdown, the same per value taken at the entry step',
  cacheable: true,
  content: json({
    type: 'object',
    additionalProperties: false,
    required: Object.keys(funnelTotals),
    properties: {
      ...funnelTotals,
      breakdowns: {
        type: 'array',
        items: object({ value: nullable({ type: 'string', description: 'null where the entry event has no value' }), ...funnelTotals }),
      },
      previous: { ...object(funnelTotals), description: 'compare only: the same funnel over the compared window, without breakdown' },
      change: {
        ...object({
          steps: {
            type: 'array',
            items: object({ step: { type: 'integer', minimum: 1 }, ...changeSchema(STEP_FIGURES, RATE_FIELDS).properties }),
          },
          ...changeSchema(['totalUsers', 'completedUsers', 'overallConversionRate'], RATE_FIELDS).properties,
        }),
        description: 'compare only: per figure, the change from `previous`',
      },
    },
  }),
}

const periodValues = {
  type: 'array',
  items: nullable({ type: 'integer', minimum: 0 }),
  description: 'Period 0 (the cohort) to `periods`; null where the period starts after now',
}
const periodPercentages = { type: 'array', items: nullable({ type: 'number', minimum: 0, maximum: 100 }) }

export const retentionResponse: RouteResponse = {
  description: 'Visitors of each cohort coming back in the periods after it, with the weighted average',
  cacheable: true,
  content: json(
    object({
      period: { type: 'string', enum: ['day', 'week', 'month'] },
      cohorts: {
        type: 'array',
        items: object({
          date: { ...instant, description: 'Start of the cohort period' },
          size: count,
          values: periodValues,
          percentages: periodPercentages,
        }),
      },
      average: object({ percentages: { ...periodPercentages, description: 'null for a period no cohort has reached yet' } }),
    }),
  ),
}

export const pathsResponse: RouteResponse = {
  description: "The sessions' sequences of pages or events, as nodes per step and links between steps",
  cacheable: true,
  content: json(
    object(
      {
        sessions: { ...count, description: 'Sequences (sessions with at least one node)' },
        steps: {
          type: 'array',
          items: object({
            step: { type: 'integer', minimum: 1 },
            nodes: { type: 'array', items: object({ label: { type: 'string' }, sessions: count, exits: count }) },
          }),
        },
        links: {
          type: 'array',
          items: object({ step: { type: 'integer', minimum: 1 }, source: { type: 'string' }, target: { type: 'string' }, sessions: count }),
        },
        meta: {
          ...object({ warnings: { type: 'array', items: { type: 'string' } } }),
          description: 'Present when `start` began no sequence: why',
        },
      },
      ['sessions', 'steps', 'links'],
    ),
  ),
}
