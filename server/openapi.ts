// /openapi.json, generated from the same JSON Schemas that validate requests.
import { schemaOf, type Route } from './routes'

function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}')
}

export function buildOpenApi(routes: Route[]): object {
  const paths: Record<string, object> = {}
  for (const route of routes) {
    const schema = schemaOf(route) as { properties?: Record<string, object>; required?: string[] }
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))
    const queryParams = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
      name,
      in: 'query',
      required: (schema.required ?? []).includes(name),
      schema: property,
    }))
    paths[toOpenApiPath(route.path)] = {
      get: {
        summary: route.summary,
        security: [{ clientId: [], clientSecret: [] }, { basic: [] }],
        parameters: [...pathParams, ...queryParams],
        responses: {
          200: { description: 'OK' },
          400: { description: 'Invalid parameters, every problem listed' },
          401: { description: 'Missing or wrong credentials' },
          403: { description: 'Client may not read this project' },
          404: { description: 'Unknown project' },
          429: { description: 'Rate limited (Retry-After)' },
          503: { description: 'ClickHouse unreachable (Retry-After)' },
          504: { description: 'Query time limit reached' },
        },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Quarry', version: '0.1.0', description: 'Read-only analytics query gateway for ClickHouse' },
    components: {
      securitySchemes: {
        clientId: { type: 'apiKey', in: 'header', name: 'openpanel-client-id' },
        clientSecret: { type: 'apiKey', in: 'header', name: 'openpanel-client-secret' },
        basic: { type: 'http', scheme: 'basic' },
      },
    },
    paths,
  }
}
