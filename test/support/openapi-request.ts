// supertest, checked against /openapi.json: every response a test awaits must be documented for its
// path, method and status, carry its documented headers, and have a body its response schema accepts.
import { dereference } from '@readme/openapi-parser'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import type express from 'express'
import supertest from 'supertest'
import { buildOpenApi } from '../../server/http/openapi'
import { ROUTES } from '../../server/routes/routes'

interface DocumentedResponse {
  headers?: Record<string, { required?: boolean; schema: object }>
  content?: Record<string, { schema: object }>
}
interface Operation {
  responses: Record<string, DocumentedResponse>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: { Error: object }; responses: { HeadersTooLarge: DocumentedResponse } }
}

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true })
addFormats(ajv)

const published = buildOpenApi(ROUTES)
let resolved: Promise<Document> | undefined
/** The published document with every `$ref` resolved, built once. */
const resolvedDocument = () => (resolved ??= dereference(structuredClone(published) as never) as unknown as Promise<Document>)

/** Every header the document names: one of these on a response must be documented for that response. */
const DOCUMENTED_HEADERS = new Set(Object.keys(published.components.headers).map((name) => name.toLowerCase()))

const validators = new WeakMap<object, ReturnType<typeof ajv.compile>>()
function assertMatches(schema: object, value: unknown, where: string): void {
  let validate = validators.get(schema)
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)))
  if (!validate(value))
    throw new Error(`${where} does not match /openapi.json: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 500)}`)
}

function findOperation(document: Document, method: string, pathname: string): { template: string; operation: Operation } | undefined {
  for (const [template, item] of Object.entries(document.paths)) {
    // Express matches paths case-insensitively and with an optional trailing slash; so does this.
    const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}/?$`, 'i')
    const operation = item[method.toLowerCase()]
    if (operation && pattern.test(pathname)) return { template, operation }
  }
  return undefined
}

function checkHeaders(response: supertest.Response, documented: DocumentedResponse, where: string): void {
  const headers = Object.fromEntries(Object.entries(documented.headers ?? {}).map(([name, header]) => [name.toLowerCase(), header]))
  for (const [name, header] of Object.entries(headers)) {
    const value = response.headers[name]
    if (value === undefined) {
      if (header.required) throw new Error(`${where} lacks its documented header ${name}`)
      continue
    }
    assertMatches(header.schema, value, `${where} header ${name}`)
  }
  for (const name of Object.keys(response.headers)) {
    if (DOCUMENTED_HEADERS.has(name) && !headers[name])
      throw new Error(`${where} sends ${name}, which /openapi.json does not document for it`)
  }
}

function checkBody(response: supertest.Response, documented: DocumentedResponse, where: string): void {
  const mediaType = String(response.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
  if (!documented.content) {
    if (response.text) throw new Error(`${where} has a body, but /openapi.json documents none`)
    return
  }
  const content = documented.content[mediaType]
  if (!content)
    throw new Error(
      `${where} answers ${mediaType || 'no content type'}; /openapi.json documents ${Object.keys(documented.content).join(', ')}`,
    )
  if (mediaType === 'application/x-ndjson') {
    const lines = response.text.split('\n').filter(Boolean)
    for (const [index, line] of lines.entries()) assertMatches(content.schema, JSON.parse(line), `${where} line ${index + 1}`)
    return
  }
  assertMatches(content.schema, mediaType === 'application/json' ? response.body : response.text, where)
}

/** Throws when the response is not what /openapi.json promises for its request. */
export async function assertDocumented(response: supertest.Response): Promise<void> {
  const document = await resolvedDocument()
  const request = (response as unknown as { req: { method: string; path: string } }).req
  const pathname = new URL(request.path, 'http://gateway').pathname
  const where = `${request.method} ${pathname} -> ${response.status}`
  const found = findOperation(document, request.method, pathname)
  if (!found) {
    // Paths outside the document answer the error body (a JSON 404), or Node's own bodiless 431.
    if (response.status === 431) checkBody(response, document.components.responses.HeadersTooLarge, where)
    else assertMatches(document.components.schemas.Error, response.body, where)
    return
  }
  const documented = found.operation.responses[String(response.status)]
  if (!documented) throw new Error(`${where}: status ${response.status} is not documented for ${request.method} ${found.template}`)
  checkHeaders(response, documented, where)
  checkBody(response, documented, where)
}

/** A supertest request whose answer is checked against /openapi.json before it settles. */
function checked(test: supertest.Test): supertest.Test {
  const settle = test.then.bind(test)
  // biome-ignore lint/suspicious/noThenProperty: the test stays awaitable, its answer checked before it settles
  test.then = ((onFulfilled, onRejected) =>
    settle(async (response) => {
      await assertDocumented(response)
      return response
    }).then(onFulfilled, onRejected)) as typeof test.then
  return test
}

/** Like `supertest(app)`, but every awaited response is checked against /openapi.json. */
export function request(app: express.Express) {
  const agent = supertest(app)
  return {
    get: (url: string): supertest.Test => checked(agent.get(url)),
    post: (url: string): supertest.Test => checked(agent.post(url)),
  }
}
