// Response bodies of the discovery routes (`/insights/:projectId/events/...`).
import { RATE_FIELDS } from '../core/compare'
import { changeSchema, previousSchema } from '../core/compare-responses'
import { instant, type RouteResponse } from '../core/responses'

const list = (description: string, properties: Record<string, object>, optional: Record<string, object> = {}): RouteResponse => ({
  description,
  cacheable: true,
  paged: true,
  content: {
    'application/json': {
      schema: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: Object.keys(properties),
          properties: { ...properties, ...optional },
        },
      },
    },
  },
})

const count = (what: string) => ({ type: 'integer', minimum: 1, description: `Events of the window ${what}` })

export const eventNamesResponse = list(
  'One page of event names, most events first, then the name',
  {
    name: { type: 'string' },
    count: count('with this name'),
    lastSeen: { ...instant, description: "The window's last event of this name, ISO 8601 with the offset of the request timezone" },
  },
  { previous: previousSchema({ count: count('with this name') }), change: changeSchema(['count'], RATE_FIELDS) },
)

export const eventPropertiesResponse = list('One page of property keys, most events first, then the key', {
  key: { type: 'string' },
  count: count('carrying this key (of the asked name, if any)'),
})

export const eventPropertyValuesResponse = list('One page of values of the property, most events first, then the value', {
  value: { type: 'string' },
  count: count('whose property holds this value (of the asked name, if any)'),
})
