// /openapi.json is a valid OpenAPI 3.1 document that describes every route's answers, and the checked
// request helper fails a test when a response drifts from it.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { compileErrors, validate } from '@readme/openapi-parser'
import express from 'express'
import { buildOpenApi } from '../../server/http/openapi'
import { ROUTES } from '../../server/http/routes'
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
    assert.deepEqual(Object.keys(operationOf('/export/events').responses[200].content ?? {}), ['application/json', 'application/x-ndjson', 'text/csv'])
  })

  it('declares Basic auth and the two openpanel headers, and asks for them on every route', () => {
    assert.deepEqual(document.components.securitySchemes, {
      clientId: { type: 'apiKey', in: 'header', name: 'openpanel-client-id' },
      clientSecret: { type: 'apiKey', in: 'header', name: 'openpanel-client-secret' },
      basic: { type: 'http', scheme: 'basic', description: 'The client id as user name, the secret as password' },
    })
    for (const route of ROUTES) assert.deepEqual(operationOf(route.path.replace(/:(\w+)/g, '{$1}')).security, [{ clientId: [], clientSecret: [] }, { basic: [] }])
    assert.deepEqual(operationOf('/health').security, [])
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
    await assert.rejects(request(app).get('/insights/extra/live'), /does not match \/openapi.json: data must NOT have additional properties/)
    await assert.rejects(request(app).get('/insights/teapot/live'), /status 418 is not documented/)
    await assert.rejects(request(app).get('/insights/link/live'), /sends link, which \/openapi.json does not document/)
    await assert.rejects(request(app).get('/insights/bare/live'), /lacks its documented header x-request-id/)
  })
})
