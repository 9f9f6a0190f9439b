// POST /insights/:projectId/batch on the golden fixture: each question answers exactly what its GET answers
// alone (and what the reference model answers, where it has the route), a failed question carries its own
// error while the others answer, a bad envelope is one 400 listing every problem, authentication and the
// project come first, and the batch draws one rate-limit token, is logged once and takes the client's
// query slots one per question.
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import winston from 'winston'
import type { CompiledQuery } from '../../queries/core/compiled'
import { createApiClient } from '../../server/admin/control'
import { createApp } from '../../server/http/app'
import { createMetrics } from '../../server/http/metrics'
import { BATCH_EXAMPLE } from '../../server/http/openapi-examples'
import { createLogger } from '../../server/logger'
import { answerInsights } from '../reference/model'
import { goldenEvents, loadGolden, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { recording } from '../support/recording-runner'

/** The export's route under the project's path, which a batch may not ask. */
const EXPORT_ROUTE = ['export', 'events'].join('/')

const NOW = new Date('2024-04-10T00:00:00.000Z')
// The shop's zone is Europe/Berlin: the window holds the change to summer time (31 March).
const WINDOW = { startDate: '2024-03-27', endDate: '2024-04-02' }
const BREAKDOWNS = ['referrer', 'referrer_name', 'utm_source', 'country', 'city', 'device', 'browser', 'os']
const FUNNEL_STEPS = [
  { name: 'screen_view', filters: [{ name: 'path', operator: 'contains', value: ['produkte'] }] },
  'add_to_cart',
  'purchase',
]

interface Question {
  id: string
  route: string
  params: Record<string, unknown>
}
interface Result {
  id: string
  status: number
  body: unknown
}

const QUESTIONS: Question[] = [
  { id: 'metrics', route: 'metrics', params: { ...WINDOW, interval: 'day' } },
  { id: 'pages', route: 'pages', params: { ...WINDOW, limit: 5 } },
  ...BREAKDOWNS.map((route) => ({ id: route, route, params: WINDOW })),
  { id: 'entries', route: 'pages/entry_exit', params: { ...WINDOW, mode: 'entry' } },
  { id: 'sessions', route: 'sessions', params: { ...WINDOW, limit: 3 } },
  { id: 'funnel', route: 'funnel', params: { ...WINDOW, steps: FUNNEL_STEPS } },
  { id: 'german', route: 'metrics', params: { ...WINDOW, filters: [{ name: 'country', operator: 'is', value: ['DE'] }] } },
]

/** A question's parameters as a GET's query string: text as is, anything else as its JSON text. */
const queryStringOf = (params: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(params).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]))

/** An error body without its request id, which names the request that carried it. */
const withoutRequestId = (body: unknown) => {
  const { requestId: _, ...rest } = body as { requestId?: string }
  return rest
}

const remainingOf = (header: string | undefined) => Number(/remaining=(\d+)/.exec(header ?? '')?.[1])

describe('POST /insights/:projectId/batch', function () {
  this.timeout(300_000)
  let h: Harness
  let auth: Record<string, string>
  const events = goldenEvents('shop')

  before(async () => {
    // More query slots than the default 8: the dashboard's 13 questions run at once, as 13 GETs sent at once would need.
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_MAX_CONCURRENT_QUERIES: '32' }, now: NOW })
    const root = await loadGolden(h.engine)
    auth = { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  })
  after(() => h.close())

  const batch = (body: unknown, app = h.app, headers = auth) =>
    request(app)
      .post('/insights/shop/batch')
      .set(headers)
      .send(body as object)

  it('answers every question as its GET answers it alone, in order, and as the reference model where it has the route', async () => {
    const res = await batch({ requests: QUESTIONS }).set('cache-control', 'no-cache')
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.equal(res.headers['cache-control'], 'no-store')
    const results = res.body.results as Result[]
    assert.deepEqual(
      results.map(({ id, status }) => [id, status]),
      QUESTIONS.map(({ id }) => [id, 200]),
    )
    for (const [index, question] of QUESTIONS.entries()) {
      const query = queryStringOf(question.params)
      const alone = await request(h.app)
        .get(`/insights/shop/${question.route}?${query}`)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.equal(alone.status, 200, `${question.id}: ${JSON.stringify(alone.body)}`)
      assert.deepEqual(results[index].body, alone.body, question.id)
      if (['sessions', 'funnel'].includes(question.route)) continue
      const model = answerInsights({
        events,
        projectTimezone: 'Europe/Berlin',
        resource: question.route,
        query: Object.fromEntries(query),
        now: NOW,
      })
      assert.deepEqual(results[index].body, model.body, `${question.id}, the reference model`)
    }
    const metrics = results[0].body as { metrics: { total_sessions: number } }
    assert.ok(metrics.metrics.total_sessions > 0, 'the window has sessions')
  })

  it('answers a failed question with its own status and error body, the others still answering', async () => {
    const bad = { id: 'bad', route: 'pages', params: { ...WINDOW, filters: [{ name: 'path', operator: 'gt', value: [1] }] } }
    const res = await batch({ requests: [QUESTIONS[0], bad, QUESTIONS[2]] })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const results = res.body.results as Result[]
    assert.deepEqual(
      results.map(({ id, status }) => [id, status]),
      [
        ['metrics', 200],
        ['bad', 400],
        ['referrer', 200],
      ],
    )
    const alone = await request(h.app)
      .get(`/insights/shop/pages?${queryStringOf(bad.params)}`)
      .set(auth)
    assert.equal(alone.status, 400)
    assert.deepEqual(withoutRequestId(results[1].body), withoutRequestId(alone.body))
    assert.equal((results[1].body as { requestId: string }).requestId, res.headers['x-request-id'])
  })

  it('refuses a bad envelope with one 400 listing every problem', async () => {
    const many = Array.from({ length: 21 }, (_, index) => ({ id: `q${index}`, route: 'metrics', params: WINDOW }))
    many[1].id = 'q0'
    Object.assign(many[2], { route: 'batch' })
    Object.assign(many[3], { route: '../export/events' })
    Object.assign(many[4], { params: 'startDate=2024-03-27' })
    Object.assign(many[5], { id: undefined })
    const res = await batch({ requests: many })
    assert.equal(res.status, 400, JSON.stringify(res.body))
    const issues = (res.body.details.issues as { path: (string | number)[] }[]).map((issue) => issue.path.join('.'))
    for (const path of ['requests', 'requests.1.id', 'requests.2.route', 'requests.3.route', 'requests.4.params', 'requests.5.id']) {
      assert.ok(issues.includes(path), `${path} is among ${JSON.stringify(issues)}`)
    }
    for (const body of [
      {},
      { requests: [] },
      [],
      { requests: [QUESTIONS[0]], extra: 1 },
      // A route of the gateway that is not an insights one (the export's), named as a batch would name it.
      { requests: [{ id: 'x', route: EXPORT_ROUTE }] },
    ]) {
      const refused = await batch(body)
      assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(refused.body)}`)
      assert.ok(refused.body.details.issues.length > 0, JSON.stringify(refused.body))
    }
    const notJson = await batch('{"requests": [').type('json')
    assert.equal(notJson.status, 400, JSON.stringify(notJson.body))
    assert.equal(notJson.body.details.issues.length, 1)
  })

  it("answers /openapi.json's example, every question 200", async () => {
    const res = await batch(BATCH_EXAMPLE)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(
      (res.body.results as Result[]).map(({ id, status }) => [id, status]),
      BATCH_EXAMPLE.requests.map(({ id }) => [id, 200]),
    )
    const funnel = (res.body.results as Result[]).find(({ id }) => id === 'checkout')?.body as { steps: { users: number }[] }
    assert.ok(funnel.steps[2].users > 0, JSON.stringify(funnel.steps))
  })

  it('answers 413 with the error body past 64 KiB', async () => {
    const res = await batch({ requests: [{ id: 'x', route: 'metrics', params: { ...WINDOW, pad: 'x'.repeat(70_000) } }] })
    assert.equal(res.status, 413, JSON.stringify(res.body))
    assert.equal(res.body.error, 'Payload Too Large')
  })

  it('authenticates before anything else, then checks the project as the GET does', async () => {
    const anonymous = await batch('not json', h.app, {}).type('json')
    assert.equal(anonymous.status, 401, JSON.stringify(anonymous.body))
    const blog = await createApiClient(h.engine, { type: 'read', projectId: 'blog' })
    const blogAuth = { 'openpanel-client-id': blog.id, 'openpanel-client-secret': blog.secret }
    const forbidden = await batch('not json', h.app, blogAuth).type('json')
    assert.equal(forbidden.status, 403, JSON.stringify(forbidden.body))
    const missing = await request(h.app)
      .post('/insights/nowhere/batch')
      .set(auth)
      .send({ requests: [QUESTIONS[0]] })
    assert.equal(missing.status, 404, JSON.stringify(missing.body))
  })

  it('draws one rate-limit token for the whole batch, and is counted and logged once, with its questions', async () => {
    const lines: { message: string; path?: string; questions?: number; status?: number }[] = []
    const logger = createLogger('info', false, 'json')
    const stream = new PassThrough()
    stream.on('data', (chunk: Buffer) => {
      for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text))
    })
    logger.clear().add(new winston.transports.Stream({ stream }))
    const metrics = createMetrics()
    const app = createApp({ config: h.config, runner: h.runner, directory: h.directory, logger, metrics, clock: () => h.now })
    const before = await request(app)
      .get(`/insights/shop/metrics?${queryStringOf(WINDOW)}`)
      .set(auth)
    const res = await batch({ requests: QUESTIONS }, app)
    const after = await request(app)
      .get(`/insights/shop/metrics?${queryStringOf(WINDOW)}`)
      .set(auth)
    assert.equal(res.status, 200)
    assert.equal(
      remainingOf(before.headers.ratelimit) - remainingOf(res.headers.ratelimit),
      1,
      `${before.headers.ratelimit} -> ${res.headers.ratelimit}`,
    )
    assert.equal(
      remainingOf(res.headers.ratelimit) - remainingOf(after.headers.ratelimit),
      1,
      `${res.headers.ratelimit} -> ${after.headers.ratelimit}`,
    )
    await new Promise((resolve) => setImmediate(resolve))
    const logged = lines.filter((line) => line.message === 'request' && line.path === '/insights/shop/batch')
    assert.deepEqual(
      logged.map(({ status, questions }) => ({ status, questions })),
      [{ status: 200, questions: QUESTIONS.length }],
    )
    const counted = (await metrics.registry.getSingleMetric('quarry_http_requests_total')?.get())?.values ?? []
    assert.deepEqual(
      counted.filter(({ labels }) => labels.method === 'POST').map(({ labels, value }) => [labels.route, labels.status, value]),
      [['/insights/:projectId/batch', '200', 1]],
    )
  })

  it("holds one of the client's query slots per question, refusing those past the cap as their GETs would be", async () => {
    const app = createApp({
      config: { ...h.config, maxConcurrentQueries: 2 },
      runner: h.runner,
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => h.now,
    })
    const res = await batch({ requests: QUESTIONS.slice(0, 4) }, app).set('cache-control', 'no-cache')
    assert.equal(res.status, 200, JSON.stringify(res.body))
    assert.deepEqual(
      (res.body.results as Result[]).map(({ status }) => status),
      [200, 200, 429, 429],
    )
    // The slots are given back as each question ends: the next batch has them again.
    const again = await batch({ requests: QUESTIONS.slice(0, 2) }, app)
    assert.deepEqual(
      (again.body.results as Result[]).map(({ status }) => status),
      [200, 200],
    )
  })

  it('asks its questions at once: the breakdowns join into fewer statements and share one settled check', async () => {
    const ran: CompiledQuery[] = []
    const app = createApp({
      config: { ...h.config, maxConcurrentQueries: 64 },
      runner: recording(h.runner, ran),
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => h.now,
    })
    const breakdowns = QUESTIONS.filter((question) => BREAKDOWNS.includes(question.route))
    const res = await batch({ requests: breakdowns }, app).set('cache-control', 'no-cache')
    assert.deepEqual(
      (res.body.results as Result[]).map(({ status }) => status),
      breakdowns.map(() => 200),
    )
    const checks = ran.filter((statement) => statement.template === 'insights.settled_days')
    const statements = ran.filter((statement) => statement.template !== 'insights.settled_days')
    assert.equal(checks.length, 1, `${checks.length} settled checks for ${breakdowns.length} breakdowns of one window`)
    assert.ok(
      statements.length < breakdowns.length && statements.some((statement) => statement.template.startsWith('insights.dimension_sets')),
      `${statements.map((statement) => statement.template)} for ${breakdowns.length} breakdowns asked in one batch`,
    )
  })

  it('lets each question be answered from the result cache, and asks every one fresh under Cache-Control: no-cache', async () => {
    const ran: CompiledQuery[] = []
    const app = createApp({
      config: h.config,
      runner: recording(h.runner, ran),
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => h.now,
    })
    const questions = QUESTIONS.slice(0, 2)
    for (const { route, params } of questions)
      await request(app)
        .get(`/insights/shop/${route}?${queryStringOf(params)}`)
        .set(auth)
    ran.length = 0
    const cached = await batch({ requests: questions }, app)
    assert.equal(cached.status, 200)
    assert.equal(ran.length, 0, 'the cached answers ran no statement')
    const fresh = await batch({ requests: questions }, app).set('cache-control', 'no-cache')
    assert.deepEqual(
      fresh.body.results.map(({ body }: Result) => body),
      cached.body.results.map(({ body }: Result) => body),
    )
    assert.ok(
      ran.filter((statement) => statement.template !== 'insights.settled_days').length >= questions.length,
      `${ran.map((statement) => statement.template)} for ${questions.length} questions asked fresh`,
    )
  })
})
