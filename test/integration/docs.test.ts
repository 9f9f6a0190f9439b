// The published document's by-products: the committed TypeScript types are what the running
// /openapi.json generates, the typed example client compiles against them and reads real answers, every
// route's worked examples answer 200 on a first start's demo project, and /docs serves its page from the
// gateway itself.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import supertest from 'supertest'
import ts from 'typescript'
import { createQuarryClient, fetchDailyMetrics } from '../../examples/metrics-client'
import { createApiClient, createProject } from '../../server/admin/control'
import { ensureDemo, type DemoCredentials } from '../../server/admin/demo'
import { TYPES_FILE, generateTypes } from '../../server/http/openapi-types'
import { createApp } from '../../server/http/app'
import { ROUTES } from '../../server/routes/routes'
import { createLogger } from '../../server/logger'
import { exampleRequestsOf } from '../support/example-requests'
import { insertRawEvents, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'metrics-client.ts')

/** Type errors of `files`, with the types file read as `typesText` (not from disk). */
function typeErrors(files: string[], typesText: string): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  }
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  host.readFile = (file) => (path.resolve(file) === TYPES_FILE ? typesText : readFile(file))
  const program = ts.createProgram(files, options, host)
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

describe('OpenAPI types, the typed client and /docs', function () {
  this.timeout(120_000)
  let h: Harness
  let typesText: string
  let demo: DemoCredentials

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    // What a first start does on an empty database: the demo project, seeded, and its read client.
    demo = (await ensureDemo(h.engine, 20_000, () => undefined))!.credentials
    const res = await request(h.app).get('/openapi.json').expect(200)
    typesText = await generateTypes(res.body)
  })
  after(() => h?.close())

  it('commits the types the running /openapi.json generates (npm run openapi:types)', () => {
    assert.ok(typesText === fs.readFileSync(TYPES_FILE, 'utf8'), 'examples/quarry-api.ts is stale: run npm run openapi:types')
  })

  it('compiles the example client against those types, and refuses a field the document does not have', () => {
    assert.deepEqual(typeErrors([EXAMPLE], typesText), [])
    const wrong = path.join(path.dirname(EXAMPLE), `.wrong-${crypto.randomUUID()}.ts`)
    fs.writeFileSync(
      wrong,
      "import { fetchDailyMetrics } from './metrics-client'\nexport const sessions = (data: Awaited<ReturnType<typeof fetchDailyMetrics>>) => data.metrics.total_session\n",
    )
    try {
      const errors = typeErrors([wrong], typesText)
      assert.equal(errors.length, 1, errors.join('\n'))
      assert.match(errors[0], /Property 'total_session' does not exist/)
    } finally {
      fs.rmSync(wrong)
    }
  })

  it('reads the same metrics through the example client as over plain HTTP', async () => {
    await createProject(h.engine, { id: 'typed', timezone: 'America/New_York' })
    const start = h.now.getTime() - 2 * 86_400_000
    await insertRawEvents(
      h.engine,
      [0, 1, 2, 3].map((i) => ({
        id: crypto.randomUUID(),
        name: 'screen_view',
        device_id: `d${i % 2}`,
        session_id: `s${i % 2}`,
        path: `/${i}`,
        created_at: new Date(start + i * 60_000).toISOString(),
      })),
      'typed',
    )
    const reader = await createApiClient(h.engine, { type: 'read', projectId: 'typed' })
    const server: Server = h.app.listen(0, '127.0.0.1')
    try {
      await new Promise((resolve) => server.once('listening', resolve))
      const client = createQuarryClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        clientId: reader.id,
        clientSecret: reader.secret,
      })
      const typed = await fetchDailyMetrics(client, 'typed')
      const plain = await request(h.app)
        .get('/insights/typed/metrics?range=30d&interval=day')
        .set({ 'openpanel-client-id': reader.id, 'openpanel-client-secret': reader.secret })
        .expect(200)
      assert.deepEqual(typed, plain.body)
      assert.equal(typed.metrics.total_sessions, 2)
      assert.equal(typed.metrics.total_screen_views, 4)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("answers 200 to every route's worked examples on the demo project, as /docs fills them in", async () => {
    const app = createApp({
      config: h.config,
      runner: h.runner,
      directory: h.directory,
      logger: createLogger('error', true),
      demoProjectId: demo.projectId,
    })
    const document = (await request(app).get('/openapi.json').expect(200)).body
    const auth = { 'openpanel-client-id': demo.clientId, 'openpanel-client-secret': demo.clientSecret }
    const failed: string[] = []
    const sent: string[] = []
    for (const route of ROUTES) {
      for (const example of exampleRequestsOf(document, route.path.replace(/:(\w+)/g, '{$1}'))) {
        const res = await request(app).get(example.url).set(auth)
        sent.push(example.url)
        if (res.status !== 200) failed.push(`${example.url}: ${res.status} ${res.text}`)
      }
    }
    assert.deepEqual(failed, [])
    assert.ok(
      sent.every((url) => url.startsWith('/insights/demo/') || /[?&]projectId=demo(&|$)/.test(url)),
      'every example names the demo project',
    )
    const [funnel] = sent.filter((url) => url.startsWith('/insights/demo/funnel?'))
    assert.deepEqual(new URL(funnel, 'http://localhost').searchParams.getAll('steps').slice(1), ['add_to_cart', 'purchase'])
    const answer = (await request(app).get(funnel).set(auth).expect(200)).body
    assert.ok(answer.steps[0].users > answer.steps[2].users, JSON.stringify(answer.steps))
  })

  // /docs is a page, not part of the API the document describes: plain supertest.
  it('serves /docs from the installed package, reading ../openapi.json', async () => {
    const redirect = await supertest(h.app).get('/docs').expect(301)
    assert.equal(redirect.headers.location, 'docs/')
    const page = await supertest(h.app).get('/docs/').expect(200)
    const sources = [...page.text.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map(([, source]) => source)
    assert.deepEqual(
      sources.filter((source) => !source.startsWith('.')),
      [],
      'every asset is relative to /docs/',
    )
    for (const source of sources)
      await supertest(h.app)
        .get(`/docs/${source.slice(2)}`)
        .expect(200)
    const init = await supertest(h.app).get('/docs/swagger-ui-init.js').expect(200)
    assert.match(init.text, /"url": "..\/openapi.json"/)
    assert.match(init.text, /"validatorUrl": null/)
  })

  it("serves the page at /docs/index.html too, and none of swagger-ui-dist's own page, initializer or other files", async () => {
    const page = await supertest(h.app).get('/docs/').expect(200)
    assert.equal((await supertest(h.app).get('/docs/index.html').expect(200)).text, page.text)
    for (const file of [
      'swagger-initializer.js',
      'index.css',
      'index.js',
      'oauth2-redirect.html',
      'package.json',
      'swagger-ui.js',
      'absolute-path.js',
    ]) {
      const res = await supertest(h.app).get(`/docs/${file}`)
      assert.equal(res.status, 404, file)
      assert.doesNotMatch(res.text, /petstore/i, file)
    }
  })

  it("sends a Content-Security-Policy that admits only the gateway, with the page's inline styles by hash", async () => {
    for (const url of ['/docs/', '/docs/index.html', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-init.js']) {
      const res = await supertest(h.app).get(url).expect(200)
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url)
      const policy = String(res.headers['content-security-policy'])
      const directives = new Map(policy.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1)]))
      assert.deepEqual(directives.get('default-src'), ["'self'"], url)
      assert.deepEqual(directives.get('script-src'), ["'self'"], url)
      assert.deepEqual(directives.get('connect-src'), ["'self'"], url)
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], url)
      assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|\*|https?:/, url)
      const page = (await supertest(h.app).get('/docs/')).text
      for (const [, css] of page.matchAll(/<style>([\s\S]*?)<\/style>/g)) {
        assert.ok(
          directives.get('style-src')?.includes(`'sha256-${crypto.createHash('sha256').update(css).digest('base64')}'`),
          `${url}: a <style> block's hash`,
        )
      }
    }
  })
})
