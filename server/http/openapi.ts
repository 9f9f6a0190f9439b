// /openapi.json (OpenAPI 3.1), generated from the same JSON Schemas that validate requests and from the
// response schemas of queries/*/responses.ts, so the document cannot drift from what is served.
import { errorBodySchema, type RouteResponse } from '../../queries/core/responses'
import { TREE_FILTERS_PROPERTY, filterTreeSchema } from '../../queries/core/filter-tree'
import { filtersSchema } from '../../queries/core/filters'
import { BATCH_EXAMPLE, FAMILIES, PROJECT_PLACEHOLDER, familyOf, parameterDocOf, type ParameterExample } from './openapi-examples'
import { introduction } from './openapi-introduction'
import { schemaOf, type Route } from '../routes/routes'
import { BATCH_PATH, MAX_BATCH_BYTES, MAX_BATCH_REQUESTS, batchRequestSchema, batchRoutes } from './batch'

export interface OpenApiOptions {
  /** The project the gateway's demo client reads, when it has one: every `projectId` example names it. */
  demoProjectId?: string
}

type Header = { description: string; required?: boolean; schema: object }

const ERROR = { $ref: '#/components/schemas/Error' }

/** Every response header the gateway sends on purpose; `required` ones are always there. */
const HEADERS = {
  'X-Request-Id': { description: 'Identifies the request in the gateway log', required: true, schema: { type: 'string', format: 'uuid' } },
  'Retry-After': { description: 'Seconds to wait before retrying', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
  Link: {
    description: 'The next page, `<...>; rel="next"`, while more rows exist',
    schema: { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
  },
  RateLimit: { description: "The client's remaining requests in the window (IETF draft 7)", schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'The per-client limit and its window (IETF draft 7)', schema: { type: 'string' } },
  'Cache-Control': { description: 'How long the answer may be reused (when the result cache is on)', schema: { type: 'string' } },
  Age: { description: 'Seconds since a cached answer was computed', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'X-Cache': { description: 'Whether the result cache answered', schema: { type: 'string', enum: ['hit', 'miss'] } },
  ETag: {
    description: 'Validator of the body (Express sets a weak one on every JSON body), for If-None-Match',
    schema: { type: 'string' },
  },
} satisfies Record<string, Header>
type HeaderName = keyof typeof HEADERS

const headerRefs = (...names: HeaderName[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]))

/** On every answer of an authenticated route: the request id, the client's rate limit, Express's ETag. */
const ROUTE_HEADERS: HeaderName[] = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'ETag']
const CACHE_HEADERS: HeaderName[] = ['Cache-Control', 'Age', 'X-Cache']

const errorResponse = (description: string, extra: HeaderName[] = []) => ({
  description,
  headers: headerRefs(...ROUTE_HEADERS, ...extra),
  content: { 'application/json': { schema: ERROR } },
})

/** The error answers every authenticated route can give (auth, validation, limits, engine), by status. */
const ERROR_RESPONSES = {
  400: ['BadRequest', errorResponse('Invalid parameters, every problem listed in details.issues')],
  401: ['Unauthorized', errorResponse('Missing or wrong credentials')],
  403: ['Forbidden', errorResponse('The client may not read this project (or is a write client)')],
  404: ['NotFound', errorResponse('Unknown project')],
  429: ['TooManyRequests', errorResponse('Too many requests or queries in flight for this client', ['Retry-After'])],
  500: ['InternalError', errorResponse('Internal error; quote the requestId when reporting it')],
  503: ['Unavailable', errorResponse('ClickHouse unreachable or busy', ['Retry-After'])],
  504: ['Timeout', errorResponse('Query time limit reached')],
} as const

/** Node's HTTP parser answers this itself, before the gateway sees the request. */
const TOO_LARGE = { description: "The request line and headers exceed Node's limit (16 KiB); no body" }

const NOT_MODIFIED = {
  description: 'Not modified: If-None-Match matched the ETag of the JSON answer',
  headers: headerRefs(...ROUTE_HEADERS, ...CACHE_HEADERS),
}

function routeResponses(response: RouteResponse) {
  const headers = headerRefs(...ROUTE_HEADERS, ...(response.paged ? ['Link' as const] : []), ...(response.cacheable ? CACHE_HEADERS : []))
  const errors = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, [name]]) => [status, { $ref: `#/components/responses/${name}` }]),
  )
  return {
    200: { description: response.description, headers, content: response.content },
    304: { $ref: '#/components/responses/NotModified' },
    ...errors,
    431: { $ref: '#/components/responses/HeadersTooLarge' },
  }
}

/** Headers of the ops answers: no credentials, so no rate limit. */
const OPS_HEADERS = headerRefs('X-Request-Id', 'ETag')

/** What the JSON text of a `filters` parameter that takes trees holds: a flat array or a tree. */
const FILTERS_REF = { $ref: '#/components/schemas/Filters' }
const FILTER_SCHEMAS = {
  Filters: { oneOf: [filtersSchema, { $ref: '#/components/schemas/FilterTree' }] },
  FilterTree: filterTreeSchema('#/components/schemas/FilterTree'),
}

const toOpenApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}')

/** `/insights/:projectId/utm_source` -> `insightsUtmSource`; a path value other than the project is named (`insightsProfilesByProfileId`). */
const operationIdOf = (path: string): string =>
  path
    .split('/')
    .filter((segment) => segment && segment !== ':projectId')
    .map((segment) => (segment.startsWith(':') ? `by_${segment.slice(1)}` : segment))
    .join('_')
    .replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())

/** A parameter of a route, as its schema declares it, and the gateway's demo project if any. */
interface ParameterSource {
  route: Pick<Route, 'path'>
  demoProjectId?: string
  name: string
  schema: { default?: unknown; description?: string }
}

/**
 * A parameter's examples: `projectId`'s name the demo project when there is one, and a schema default comes
 * first (added when no example has it), since Swagger UI fills a parameter with its default before any example.
 */
function examplesOf({ route, demoProjectId, name, schema }: ParameterSource): Record<string, ParameterExample> {
  const examples = Object.entries(parameterDocOf(route.path, name)?.examples ?? {}).map(([key, example]): [string, ParameterExample] =>
    name === 'projectId'
      ? [key, demoProjectId ? { summary: 'The demo project', value: demoProjectId } : { ...example, value: PROJECT_PLACEHOLDER }]
      : [key, example],
  )
  if (schema.default === undefined) return Object.fromEntries(examples)
  const isDefault = ([, example]: [string, ParameterExample]) => example.value === schema.default
  const first: [string, ParameterExample] = examples.find(isDefault) ?? [
    'default',
    { summary: `The default, ${String(schema.default)}`, value: schema.default },
  ]
  return Object.fromEntries([first, ...examples.filter((example) => !isDefault(example))])
}

/** A parameter with its description and examples (openapi-examples.ts) on the Parameter object, where the renderers show them. */
function parameterOf(
  base: { name: string; in: string; required: boolean; schema: object },
  { route, demoProjectId }: { route: Pick<Route, 'path'>; demoProjectId?: string },
) {
  const source: ParameterSource = { route, demoProjectId, name: base.name, schema: base.schema }
  const description = parameterDocOf(route.path, base.name)?.description || source.schema.description
  const examples = examplesOf(source)
  return { ...base, ...(description ? { description } : {}), ...(Object.keys(examples).length ? { examples } : {}) }
}

function routeOperation(route: Route, options: OpenApiOptions) {
  const schema = schemaOf(route) as { properties?: Record<string, object>; required?: string[] }
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }))
  // Required ones first, so a route's own parameters (a funnel's steps) come before the shared window ones.
  // A path value the resource reads as a parameter (a profile's id) is a path parameter only.
  const queryParams = Object.entries(schema.properties ?? {})
    .filter(([name]) => !pathParams.some((parameter) => parameter.name === name))
    .map(([name, property]) => ({
      name,
      in: 'query',
      required: (schema.required ?? []).includes(name),
      schema:
        property === TREE_FILTERS_PROPERTY ? { ...property, contentMediaType: 'application/json', contentSchema: FILTERS_REF } : property,
    }))
    .sort((a, b) => Number(b.required) - Number(a.required))
  const cacheParams = [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }]
  return {
    operationId: operationIdOf(route.path),
    summary: route.summary,
    tags: [familyOf(route)],
    security: [{ clientId: [], clientSecret: [] }, { basic: [] }],
    parameters: [...pathParams, ...queryParams, ...cacheParams].map((parameter) =>
      parameterOf(parameter, { route, demoProjectId: options.demoProjectId }),
    ),
    responses: routeResponses(route.response),
  }
}

/** The error answers of a batch: those of every route (but 304), and 413 past its body limit. */
function batchErrors() {
  const errors = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, [name]]) => [status, { $ref: `#/components/responses/${name}` }]),
  )
  return {
    ...errors,
    413: errorResponse(`The body is larger than ${MAX_BATCH_BYTES / 1024} KiB`),
    431: { $ref: '#/components/responses/HeadersTooLarge' },
  }
}

/**
 * POST /insights/{projectId}/batch: its body's schema (the same that validates it), and each result's body as
 * one of the asked routes' answers or the error body (a route's own schema is under its GET).
 */
function batchOperation(routes: Route[], options: OpenApiOptions) {
  const allowed = batchRoutes(routes)
  const bodies = new Map<string, object>()
  for (const route of allowed.values()) {
    const schema = route.response.content['application/json'].schema
    bodies.set(JSON.stringify(schema), schema)
  }
  const result = {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'status', 'body'],
    properties: {
      id: { type: 'string', description: "The question's id" },
      status: { type: 'integer', description: 'The status its GET would answer' },
      body: { anyOf: [ERROR, ...bodies.values()], description: "What its GET would answer: the route's answer, or the error body" },
      next: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: "Only while another page follows: the parameters to change in the question's `params` for it (its GET's `Link`)",
      },
    },
  }
  const projectId = { name: 'projectId', in: 'path', required: true, schema: { type: 'string' } }
  return {
    operationId: 'insightsBatch',
    summary: `Up to ${MAX_BATCH_REQUESTS} insights questions of the project in one request`,
    description: [
      'Each question names a route under `/insights/{projectId}/` and its query parameters, and is answered exactly as that GET answers it',
      '(errors included); a bad envelope is one 400 listing every problem. The batch draws one rate-limit token; each question holds',
      "one of the client's query slots while it runs, as its GET would. `Cache-Control: no-cache` asks every question fresh.",
    ].join(' '),
    tags: ['Batch'],
    security: [{ clientId: [], clientSecret: [] }, { basic: [] }],
    parameters: [parameterOf(projectId, { route: { path: BATCH_PATH }, demoProjectId: options.demoProjectId })],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: batchRequestSchema([...allowed.keys()]),
          examples: { dashboard: { summary: 'A dashboard of the last 30 days', value: BATCH_EXAMPLE } },
        },
      },
    },
    responses: {
      200: {
        description: "Every question's answer, in the order asked",
        headers: headerRefs(...ROUTE_HEADERS, 'Cache-Control'),
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['results'],
              properties: { results: { type: 'array', items: result } },
            },
          },
        },
      },
      ...batchErrors(),
    },
  }
}

const OPS_PATHS = {
  '/health': {
    get: {
      operationId: 'health',
      summary: 'The process is up',
      tags: ['Health'],
      security: [],
      responses: {
        200: {
          description: 'Up',
          headers: OPS_HEADERS,
          content: {
            'application/json': {
              schema: { type: 'object', additionalProperties: false, required: ['status'], properties: { status: { const: 'ok' } } },
            },
          },
        },
      },
    },
  },
  '/ready': {
    get: {
      operationId: 'ready',
      summary: 'ClickHouse answers',
      tags: ['Health'],
      security: [],
      responses: {
        200: {
          description: 'Ready',
          headers: OPS_HEADERS,
          content: {
            'application/json': {
              schema: { type: 'object', additionalProperties: false, required: ['status'], properties: { status: { const: 'ready' } } },
            },
          },
        },
        503: {
          description: 'ClickHouse is not reachable',
          headers: headerRefs('X-Request-Id', 'ETag', 'Retry-After'),
          content: { 'application/json': { schema: ERROR } },
        },
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'This document',
      tags: ['Health'],
      security: [],
      responses: {
        200: { description: 'OpenAPI 3.1', headers: OPS_HEADERS, content: { 'application/json': { schema: { type: 'object' } } } },
      },
    },
  },
}

export function buildOpenApi(routes: Route[], options: OpenApiOptions = {}) {
  const paths = Object.fromEntries(routes.map((route) => [toOpenApiPath(route.path), { get: routeOperation(route, options) }]))
  return {
    openapi: '3.1.0',
    info: { title: 'Quarry', version: '0.1.0', description: introduction(options.demoProjectId) },
    tags: FAMILIES.map(({ name, description }) => ({ name, description })),
    components: {
      securitySchemes: {
        clientId: { type: 'apiKey', in: 'header', name: 'openpanel-client-id' },
        clientSecret: { type: 'apiKey', in: 'header', name: 'openpanel-client-secret' },
        basic: { type: 'http', scheme: 'basic', description: 'The client id as user name, the secret as password' },
      },
      schemas: { Error: errorBodySchema, ...FILTER_SCHEMAS },
      headers: HEADERS,
      responses: { ...Object.fromEntries(Object.values(ERROR_RESPONSES)), NotModified: NOT_MODIFIED, HeadersTooLarge: TOO_LARGE },
    },
    paths: { ...paths, [toOpenApiPath(BATCH_PATH)]: { post: batchOperation(routes, options) }, ...OPS_PATHS },
  }
}
