// Response bodies of `GET /export/events`: JSON pages, or every matching row as NDJSON or CSV.
import { attributionProperties, instant, nullable, pageBody, text, type RouteResponse } from '../core/responses'

/** The fields every exported event has, then each `includes` group's (queries/export/export-events.ts INCLUDES). */
const baseFields = {
  id: { type: 'string', format: 'uuid' },
  name: text,
  deviceId: text,
  profileId: text,
  sessionId: text,
  projectId: text,
  createdAt: instant,
  path: text,
  duration: { type: 'integer', minimum: 0 },
  city: text,
  country: text,
  os: text,
  browser: text,
}
const includedFields = {
  properties: { type: 'object', additionalProperties: text, description: 'includes=properties' },
  region: text,
  latitude: nullable({ type: 'number' }),
  longitude: nullable({ type: 'number' }),
  device: text,
  brand: text,
  model: text,
  osVersion: text,
  browserVersion: text,
  ...attributionProperties,
  sdkName: text,
  sdkVersion: text,
  importedAt: nullable({ ...instant, type: 'string' }),
  origin: text,
  title: text,
  revenue: { type: 'integer', description: 'includes=revenue: in minor units' },
  groups: { type: 'array', items: text, description: 'includes=groups' },
  profile: {
    description: "includes=profile: the visitor's latest profile, null when anonymous or unknown",
    anyOf: [
      { type: 'null' },
      {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'firstName', 'lastName', 'email', 'avatar', 'properties', 'createdAt', 'lastSeenAt'],
        properties: {
          id: text,
          firstName: text,
          lastName: text,
          email: text,
          avatar: text,
          properties: { type: 'object', additionalProperties: text },
          createdAt: instant,
          lastSeenAt: instant,
        },
      },
    ],
  },
}

export const exportedEvent = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(baseFields),
  properties: { ...baseFields, ...includedFields },
}

const page = pageBody(
  {
    count: { type: 'integer', description: 'Rows on this page' },
    totalCount: { type: 'integer', description: 'Rows matching the request' },
    pages: { type: 'integer' },
    current: { type: 'integer', description: '1-based page number' },
    nextCursor: nullable({ type: 'string', description: 'Pass as `cursor` for the next page; null on the last' }),
  },
  { type: 'array', items: exportedEvent, description: 'Newest first, ties by id' },
)

export const exportEventsResponse: RouteResponse = {
  description: 'format=json: one page of events; format=ndjson or csv: every matching event, streamed',
  content: {
    'application/json': { schema: page },
    'application/x-ndjson': { schema: { ...exportedEvent, description: 'One event object per line (this schema is of one line)' } },
    'text/csv': {
      schema: {
        type: 'string',
        description: 'A header row of the field names, then one row per event (CRLF); objects as JSON text',
        pattern: `^${Object.keys(baseFields).join(',')}(,(${Object.keys(includedFields).join('|')}))*\\r\\n`,
      },
    },
  },
}
