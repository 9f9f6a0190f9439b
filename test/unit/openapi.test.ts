// /openapi.json is a valid OpenAPI 3.1 document that describes every route's answers, and the checked
// request helper fails a test when a response drifts from it.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { compileErrors, validate } from '@readme/openapi-parser'
import express from 'express'
import { QueryError } from '../../queries/core/errors'
import { prepare, type Scope } from '../../queries/core/pipeline'
import { buildOpenApi } from '../../server/http/openapi'
import { ROUTES } from '../../server/routes/routes'
import { exampleRequestsOf, type DocumentParameter } from '../support/example-requests'
import { request } from '../support/openapi-request'

type Operation = { security: object[]; responses: Record<string, { $ref?: string; content?: Record<string, { schema: object }> }> }
const document = buildOpenApi(ROUTES)
const operationOf = (path: string) => (document.paths as Record<string, { get: Operation }>)[path].get

describe('/openapi.json', () => {
  it('is valid OpenAPI 3.1 by @readme/openapi-parser', async () => {
    const result = await validate(structuredClone(document) as never)
    assert.ok(result.valid, result.valid ? '' : compileErrors(result))
  })

  it('documents a 200 body and every error status for each route', () => {
    for (const route of ROUTES) {
      const path = route.path.replace(/:(\w+)/g, '{$1}')
      const operation = operationOf(path)
      assert.ok(operation.responses[200].content?.['application/json'], `${path} has a JSON 200 body`)
      for (const status of ['400', '401', '403', '404', '429', '500', '503', '504']) {
        assert.ok(operation.responses[status]?.$ref, `${path} documents ${status}`)
      }
    }
    assert.deepEqual(Object.keys(operationOf('/export/events').responses[200].content ?? {}), [
      'application/json',
      'application/x-ndjson',
      'text/csv',
    ])
  })

  it('declares Basic auth and the two openpanel headers, and asks for them on every route', () => {
    assert.deepEqual(document.components.securitySchemes, {
      clientId: { type: 'apiKey', in: 'header', name: 'openpanel-client-id' },
      clientSecret: { type: 'apiKey', in: 'header', name: 'openpanel-client-secret' },
      basic: { type: 'http', scheme: 'basic', description: 'The client id as user name, the secret as password' },
    })
    for (const route of ROUTES)
      assert.deepEqual(operationOf(route.path.replace(/:(\w+)/g, '{$1}')).security, [{ clientId: [], clientSecret: [] }, { basic: [] }])
    assert.deepEqual(operationOf('/health').security, [])
  })
})

describe('/openapi.json for a newcomer', () => {
  const withDemo = buildOpenApi(ROUTES, { demoProjectId: 'demo' })
  const openApiPathOf = (path: string) => path.replace(/:(\w+)/g, '{$1}')
  const parametersOf = (path: string) =>
    (withDemo.paths as Record<string, { get: { parameters?: DocumentParameter[] } }>)[openApiPathOf(path)].get.parameters ?? []
  const examplesOf = (path: string, name: string) =>
    Object.values(parametersOf(path).find((parameter) => parameter.name === name)?.examples ?? {}).map((example) => example.value)
  const scope: Scope = {
    project: { id: 'demo', name: 'Demo', timezone: 'UTC' },
    now: new Date('2026-12-02T12:00:00Z'),
    sessionLookbackMs: 86_400_000,
  }

  it('gives every parameter of every route a description and an example on the Parameter object', () => {
    const missing: string[] = []
    let parameters = 0
    for (const route of ROUTES) {
      for (const parameter of parametersOf(route.path)) {
        parameters++
        if (!parameter.description) missing.push(`${route.path} ${parameter.name}: no description`)
        if (!Object.keys(parameter.examples ?? {}).length) missing.push(`${route.path} ${parameter.name}: no example`)
      }
    }
    assert.equal(parameters, 500)
    assert.deepEqual(missing, [])
  })

  it('fills projectId with the demo project when the gateway has one, with a placeholder otherwise', () => {
    for (const route of ROUTES) assert.deepEqual(examplesOf(route.path, 'projectId'), ['demo'], route.path)
    const withoutDemo = buildOpenApi(ROUTES)
    const parameters = (withoutDemo.paths as unknown as Record<string, { get: { parameters: DocumentParameter[] } }>)[
      '/insights/{projectId}/funnel'
    ].get.parameters
    assert.deepEqual(
      Object.values(parameters.find((parameter) => parameter.name === 'projectId')?.examples ?? {}).map((example) => example.value),
      ['your-project-id'],
    )
  })

  it("parses, plans and compiles every example request of every route with the route's own parser", () => {
    const problems: string[] = []
    let requests = 0
    for (const route of ROUTES) {
      for (const example of exampleRequestsOf(withDemo as never, openApiPathOf(route.path))) {
        requests++
        try {
          prepare(route.resource, { ...example.query, ...example.pathValues }, scope)
        } catch (error) {
          problems.push(`${example.url}: ${error instanceof QueryError ? JSON.stringify(error.issues) : String(error)}`)
        }
      }
    }
    assert.deepEqual(problems, [])
    assert.ok(requests >= ROUTES.length * 2, `${requests} example requests`)
    // The same check refuses a tree where a route takes a flat list only.
    const funnel = ROUTES.find((route) => route.path === '/insights/:projectId/funnel')!
    assert.throws(
      () => prepare(funnel.resource, { steps: ['screen_view', 'purchase'], filters: '{"performed":{"name":"signup"}}' }, scope),
      QueryError,
    )
  })

  it('works the JSON parameters: funnel steps as JSON steps with filters, filters flat and as a tree with a performed leaf, a chart formula', () => {
    const parsed = (values: unknown[]) =>
      values
        .flatMap((value) => (Array.isArray(value) ? value : [value]))
        .filter((value) => typeof value === 'string' && /^[[{]/.test(value))
        .map((value) => JSON.parse(value as string))
    const funnelSteps = parsed(examplesOf('/insights/:projectId/funnel', 'steps')).flat()
    assert.ok(
      funnelSteps.some((step) => step.name && step.filters?.length),
      JSON.stringify(funnelSteps),
    )
    for (const path of [
      '/insights/:projectId/metrics',
      '/insights/:projectId/pages',
      '/insights/:projectId/country',
      '/insights/:projectId/paths',
    ]) {
      const filters = parsed(examplesOf(path, 'filters'))
      assert.ok(
        filters.some((value) => Array.isArray(value)),
        `${path}: a flat list`,
      )
      assert.match(
        JSON.stringify(filters.find((value) => !Array.isArray(value))),
        /"performed":\{"name"/,
        `${path}: a tree with a performed leaf`,
      )
    }
    const series = parsed(examplesOf('/export/charts', 'series'))
    assert.ok(
      series[0].some((item: { type?: string }) => item.type === 'formula'),
      JSON.stringify(series),
    )
  })

  it('groups the routes by family, breakdowns in a family of their own after Overview and Pages', () => {
    const tagOf = (path: string) => (withDemo.paths as Record<string, { get: { tags: string[] } }>)[openApiPathOf(path)].get.tags
    assert.deepEqual(
      withDemo.tags.map((tag) => tag.name),
      ['Overview', 'Pages', 'Breakdowns', 'Behaviour', 'Discovery', 'Sessions', 'People', 'Export', 'Charts', 'Batch', 'Health'],
    )
    assert.deepEqual((withDemo.paths as unknown as Record<string, { post: { tags: string[] } }>)['/insights/{projectId}/batch'].post.tags, [
      'Batch',
    ])
    assert.deepEqual(tagOf('/insights/:projectId/funnel'), ['Behaviour'])
    assert.deepEqual(tagOf('/export/charts'), ['Charts'])
    assert.deepEqual(tagOf('/health'), ['Health'])
    assert.equal(ROUTES.filter((route) => tagOf(route.path)[0] === 'Breakdowns').length, 21)
  })

  it('opens with an introduction: authentication, where the demo credentials are, a first call and a funnel', () => {
    const intro = withDemo.info.description
    assert.match(intro, /## Authentication/)
    assert.match(intro, /openpanel-client-id/)
    assert.match(intro, /demo-credentials\.json/)
    assert.match(
      intro,
      /curl -s -u "\$CLIENT_ID:\$CLIENT_SECRET" 'http:\/\/localhost:3000\/insights\/demo\/metrics\?range=30d&interval=day'/,
    )
    assert.match(intro, /insights\/demo\/funnel/)
    assert.match(buildOpenApi(ROUTES).info.description, /your-project-id/)
  })
})

describe('the checked request helper', () => {
  // A stand-in gateway answering one documented path in ways that do and do not match the document.
  const app = express()
  app.use((_req, res, next) => {
    res.set('X-Request-Id', crypto.randomUUID())
    next()
  })
  app.get('/insights/:projectId/live', (req, res) => {
    if (req.params.projectId === 'ok') res.json({ visitors: 3 })
    else if (req.params.projectId === 'extra') res.json({ visitors: 3, guests: 1 })
    else if (req.params.projectId === 'teapot') res.status(418).json({ error: "I'm a teapot", message: 'no', requestId: 'x' })
    else if (req.params.projectId === 'link') res.set('Link', '</x>; rel="next"').json({ visitors: 3 })
    else {
      res.removeHeader('X-Request-Id')
      res.json({ visitors: 3 })
    }
  })

  it('passes a response that matches the document', async () => {
    const res = await request(app).get('/insights/ok/live').expect(200)
    assert.deepEqual(res.body, { visitors: 3 })
  })

  it('fails a body field the schema does not have, an undocumented status, an undocumented header and a missing one', async () => {
    await assert.rejects(
      request(app).get('/insights/extra/live'),
      /does not match \/openapi.json: data must NOT have additional properties/,
    )
    await assert.rejects(request(app).get('/insights/teapot/live'), /status 418 is not documented/)
    await assert.rejects(request(app).get('/insights/link/live'), /sends link, which \/openapi.json does not document/)
    await assert.rejects(request(app).get('/insights/bare/live'), /lacks its documented header x-request-id/)
  })
})
