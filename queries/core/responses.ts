// What a route answers, as JSON Schemas: the one source of /openapi.json's response bodies, which the
// integration tests hold every real response to. Shared pieces: the error body and nullable values.

/** The 200 answer of a route: its body per media type, and which optional headers it may carry. */
export interface RouteResponse {
  description: string
  /** Media type -> JSON Schema of the body (for `application/x-ndjson`, of each line). */
  content: Record<string, { schema: object }>
  /** A paged list: `Link: <...>; rel="next"` while more rows exist. */
  paged?: boolean
  /** Answers the result cache may serve: `Cache-Control`, `Age`, `X-Cache`, `ETag`, and 304 on `If-None-Match`. */
  cacheable?: boolean
}

export const nullable = (schema: { type: string } & Record<string, unknown>) => ({ ...schema, type: [schema.type, 'null'] })

/** A text value. */
export const text = { type: 'string' }

/** Where a session came from, as an event row (export) and a listed session (insights) both answer it. */
export const attributionProperties = {
  referrer: text,
  referrerName: text,
  referrerType: text,
  utmSource: text,
  utmMedium: text,
  utmCampaign: text,
  utmTerm: text,
  utmContent: text,
}

/** A page of rows as `{ meta, data }`: `meta` with every one of its properties, `data` the rows. */
export const pageBody = (meta: Record<string, object>, data: object) => ({
  type: 'object',
  additionalProperties: false,
  required: ['meta', 'data'],
  properties: {
    meta: { type: 'object', additionalProperties: false, required: Object.keys(meta), properties: meta },
    data,
  },
})

export const instant = { type: 'string', format: 'date-time', description: 'ISO 8601 with the offset of the request timezone' }

/** One JSON body for every 4xx and 5xx (server/http/error-handler.ts). */
export const errorBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['error', 'message', 'requestId'],
  properties: {
    error: { type: 'string', description: 'The HTTP reason phrase, e.g. "Bad Request"' },
    message: { type: 'string' },
    details: {
      type: 'object',
      additionalProperties: false,
      required: ['issues'],
      properties: {
        issues: {
          type: 'array',
          description: 'Every problem of the request, not only the first',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path', 'message'],
            properties: {
              path: { type: 'array', items: { type: ['string', 'integer'] } },
              message: { type: 'string' },
            },
          },
        },
      },
    },
    requestId: { type: 'string', description: 'Also sent as X-Request-Id; the log line of the request carries it' },
  },
}
