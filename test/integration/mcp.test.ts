// POST /mcp with the MCP SDK's own client, over a gateway listening on loopback with the golden fixture: the
// tools offered are those whose route exists; each tool answers what the GET of the route it mirrors answers for
// the same question (and what the reference model answers, where it has the route); a refused call (no
// credentials, another project, a cap, bad arguments, the rate limit) is a tool error with the route's error
// body, and the session goes on. Then the cases of OpenPanel's MCP tool tests that apply here.
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type express from 'express'
import { createApiClient } from '../../server/admin/control'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { offeredTools } from '../../server/mcp/mcp-server'
import { TOOLS } from '../../server/mcp/tools'
import { ROUTES, type Route } from '../../server/routes/routes'
import { answerBehaviour } from '../reference/behaviour'
import { answerChart } from '../reference/charts'
import { answerInsights } from '../reference/model'
import { goldenEvents, loadGolden, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'

const NOW = new Date('2024-04-10T00:00:00.000Z')
// The shop's zone is Europe/Berlin: the window holds the change to summer time (31 March).
const WINDOW = { startDate: '2024-03-27', endDate: '2024-04-02' }
const FUNNEL_STEPS = [
  { name: 'screen_view', filters: [{ name: 'path', operator: 'contains', value: ['produkte'] }] },
  'add_to_cart',
  'purchase',
]
const MOBILE_OR_BUYER = {
  or: [{ name: 'device', operator: 'is', value: ['mobile'] }, { performed: { name: 'purchase' } }],
}
const CHART_SERIES = [
  { name: 'screen_view', segment: 'user' },
  { name: 'purchase', segment: 'user' },
  { type: 'formula', formula: 'B/A*100', displayName: 'buyers %' },
]

type Query = Record<string, string | string[]>
type Model = (query: Query) => unknown
const events = goldenEvents('shop')
const common = { events, projectTimezone: 'Europe/Berlin', now: NOW }
const strings = (query: Query) => query as Record<string, string>

/** A question to a tool, and the same question as a GET of its route (written out here, not derived from the tool table). */
interface Case {
  tool: string
  args: Record<string, unknown>
  path: string
  query: Query
  /** The reference model's answer, where it has the route. */
  model?: Model
  /** The question is one the route refuses (its error body is the answer). */
  refused?: true
}

const CASES: Case[] = [
  {
    tool: 'list_event_names',
    args: {},
    path: '/insights/shop/events/names',
    query: {},
  },
  {
    tool: 'list_event_properties',
    args: { eventName: 'add_to_cart' },
    path: '/insights/shop/events/properties',
    query: { event: 'add_to_cart' },
  },
  {
    tool: 'get_event_property_values',
    args: { eventName: 'add_to_cart', propertyKey: 'product' },
    path: '/insights/shop/events/property_values',
    query: { event: 'add_to_cart', key: 'product' },
  },
  {
    tool: 'query_sessions',
    args: { ...WINDOW, browser: 'Chrome', limit: 5 },
    path: '/insights/shop/sessions',
    query: { ...WINDOW, limit: '5', filters: JSON.stringify([{ name: 'browser', operator: 'is', value: ['Chrome'] }]) },
  },
  {
    tool: 'query_sessions',
    args: { ...WINDOW, filters: MOBILE_OR_BUYER, browser: 'Safari' },
    path: '/insights/shop/sessions',
    query: {
      ...WINDOW,
      limit: '20',
      filters: JSON.stringify({ and: [MOBILE_OR_BUYER, { name: 'browser', operator: 'is', value: ['Safari'] }] }),
    },
  },
  {
    tool: 'get_entry_exit_pages',
    args: { ...WINDOW, mode: 'exit' },
    path: '/insights/shop/pages/entry_exit',
    query: { ...WINDOW, mode: 'exit', limit: '50' },
    model: (query) => answerInsights({ ...common, resource: 'pages/entry_exit', query: strings(query) }).body,
  },
  {
    tool: 'get_funnel',
    args: { ...WINDOW, steps: ['screen_view', 'add_to_cart', 'purchase'], groupBy: 'profile_id' },
    path: '/insights/shop/funnel',
    query: { ...WINDOW, steps: ['screen_view', 'add_to_cart', 'purchase'], groupBy: 'profile_id' },
    model: (query) => answerBehaviour({ ...common, resource: 'funnel', query }).body,
  },
  { tool: 'get_weekly_retention_series', args: {}, path: '/insights/shop/retention', query: {} },
  {
    tool: 'get_funnel_with_step_filters',
    args: { ...WINDOW, steps: FUNNEL_STEPS, breakdown: 'country', windowHours: 2 },
    path: '/insights/shop/funnel',
    query: { ...WINDOW, steps: JSON.stringify(FUNNEL_STEPS), breakdown: 'country', windowHours: '2' },
    model: (query) => answerBehaviour({ ...common, resource: 'funnel', query }).body,
  },
  {
    tool: 'get_paths',
    args: { ...WINDOW, node: 'page', steps: 3, filters: MOBILE_OR_BUYER },
    path: '/insights/shop/paths',
    query: { ...WINDOW, node: 'page', steps: '3', filters: JSON.stringify(MOBILE_OR_BUYER) },
    model: (query) => answerBehaviour({ ...common, resource: 'paths', query }).body,
  },
  {
    tool: 'list_sessions',
    args: { ...WINDOW, limit: 3, filters: MOBILE_OR_BUYER },
    path: '/insights/shop/sessions',
    query: { ...WINDOW, limit: '3', filters: JSON.stringify(MOBILE_OR_BUYER) },
  },
  {
    tool: 'get_chart',
    args: { ...WINDOW, series: CHART_SERIES, interval: 'day', previous: true },
    path: '/export/charts',
    query: { projectId: 'shop', ...WINDOW, series: JSON.stringify(CHART_SERIES), interval: 'day', previous: 'true' },
    model: (query) => answerChart({ ...common, query: strings(query) }).body,
  },
  // The tools whose routes other parts of issue 42 add: asked here as OpenPanel's REST API would be, run once offered.
  {
    tool: 'query_events',
    args: { ...WINDOW, eventNames: ['purchase'], limit: 5 },
    path: '/insights/shop/events',
    query: { ...WINDOW, eventNames: ['purchase'], limit: '5' },
  },
  {
    tool: 'get_analytics_overview',
    args: { ...WINDOW, interval: 'day' },
    path: '/insights/shop/overview',
    query: { ...WINDOW, interval: 'day' },
  },
  { tool: 'get_top_pages', args: { ...WINDOW, limit: 5 }, path: '/insights/shop/pages/top', query: { ...WINDOW, limit: '5' } },
  {
    tool: 'get_page_performance',
    args: { ...WINDOW, sortBy: 'bounce_rate', limit: 5 },
    path: '/insights/shop/pages/performance',
    query: { ...WINDOW, sortBy: 'bounce_rate', limit: '5' },
  },
  {
    tool: 'get_top_referrers',
    args: { ...WINDOW, breakdown: 'utm_source' },
    path: '/insights/shop/traffic/referrers',
    query: { ...WINDOW, breakdown: 'utm_source' },
  },
  {
    tool: 'get_country_breakdown',
    args: { ...WINDOW, breakdown: 'city' },
    path: '/insights/shop/traffic/geo',
    query: { ...WINDOW, breakdown: 'city' },
  },
  {
    tool: 'get_device_breakdown',
    args: { ...WINDOW, breakdown: 'browser' },
    path: '/insights/shop/traffic/devices',
    query: { ...WINDOW, breakdown: 'browser' },
  },
  {
    tool: 'get_user_flow',
    args: { ...WINDOW, startEvent: 'screen_view', mode: 'after', steps: 3 },
    path: '/insights/shop/user_flow',
    query: { ...WINDOW, startEvent: 'screen_view', mode: 'after', steps: '3' },
  },
  { tool: 'get_rolling_active_users', args: { days: 7 }, path: '/insights/shop/active_users', query: { days: '7' } },
  { tool: 'get_retention_cohort', args: {}, path: '/insights/shop/retention/cohort', query: {} },
  { tool: 'get_user_last_seen_distribution', args: {}, path: '/insights/shop/engagement', query: {} },
  { tool: 'find_profiles', args: { performedEvent: 'purchase' }, path: '/insights/shop/profiles', query: { performedEvent: 'purchase' } },
  { tool: 'get_profile', args: { profileId: 'user-anna' }, path: '/insights/shop/profiles/user-anna', query: {} },
  { tool: 'get_profile_sessions', args: { profileId: 'user-anna' }, path: '/insights/shop/profiles/user-anna/sessions', query: {} },
  { tool: 'get_profile_metrics', args: { profileId: 'user-anna' }, path: '/insights/shop/profiles/user-anna/metrics', query: {} },
  { tool: 'list_group_types', args: {}, path: '/insights/shop/groups/types', query: {} },
  { tool: 'find_groups', args: {}, path: '/insights/shop/groups', query: {} },
  { tool: 'get_group', args: { groupId: 'nonexistent' }, path: '/insights/shop/groups/nonexistent', query: {}, refused: true },
]

interface ToolResult {
  content: { type: string; text: string }[]
  isError?: boolean
}

/** A tool result's JSON, and whether it is an error. */
const parsed = (result: unknown) => {
  const { content, isError } = result as ToolResult
  assert.equal(content.length, 1)
  assert.equal(content[0].type, 'text')
  return { body: JSON.parse(content[0].text), isError: isError === true }
}

/** An error body without its request id, which names the request that carried it. */
const withoutRequestId = (body: unknown) => {
  const { requestId: _, ...rest } = body as { requestId?: string }
  return rest
}

/** A gateway app listening on loopback, for the SDK's client. */
async function listen(app: express.Express): Promise<{ url: URL; close(): Promise<void> }> {
  const server = http.createServer(app).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () => new Promise((resolve) => server.close(() => resolve()).closeAllConnections()),
  }
}

/** The SDK's client, connected (initialize) with `headers` as its credentials. */
async function connect(url: URL, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'quarry-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
  return client
}

describe('MCP tools: which are offered', () => {
  it('offers a tool only when the routes table has the route it mirrors, looked up by path', () => {
    const funnel = ROUTES.find((route) => route.path === '/insights/:projectId/funnel') as Route
    const offered = offeredTools([funnel]).map(({ spec }) => spec.name)
    assert.deepEqual(offered, ['get_funnel', 'get_funnel_with_step_filters'])
    const renamed = offeredTools([{ ...funnel, path: '/insights/:projectId/funnels' }])
    assert.deepEqual(renamed, [])
  })

  it('names every tool once, and leaves out GSC, saved reports and dashboard links', () => {
    const names = TOOLS.map((tool) => tool.name)
    assert.equal(new Set(names).size, names.length)
    for (const skipped of ['gsc_get_overview', 'list_dashboards', 'list_reports', 'get_report_data']) {
      assert.ok(!names.includes(skipped), skipped)
    }
  })
})

describe("MCP tools: arguments as their route's query string", () => {
  const sessions = TOOLS.find((tool) => tool.name === 'query_sessions') as (typeof TOOLS)[number]

  it("ANDs OpenPanel's attribute arguments into the filters, flat or a tree", () => {
    const chrome = { name: 'browser', operator: 'is', value: ['Chrome'] }
    const german = { name: 'country', operator: 'is', value: ['DE'] }
    assert.deepEqual(sessions.params({ browser: 'Chrome', country: 'DE' }), {
      range: '30d',
      limit: '20',
      filters: JSON.stringify([german, chrome]),
    })
    assert.deepEqual(sessions.params({ filters: [german], browser: 'Chrome', limit: 3, ...WINDOW }), {
      ...WINDOW,
      limit: '3',
      filters: JSON.stringify([german, chrome]),
    })
    assert.deepEqual(sessions.params({ filters: MOBILE_OR_BUYER, browser: 'Chrome', range: '7d' }), {
      range: '7d',
      limit: '20',
      filters: JSON.stringify({ and: [MOBILE_OR_BUYER, chrome] }),
    })
  })

  it('sends a list of names as repeated values, numbers as text and structured values as their JSON', () => {
    const flow = TOOLS.find((tool) => tool.name === 'get_user_flow') as (typeof TOOLS)[number]
    assert.deepEqual(flow.params({ startEvent: 'a', exclude: ['b', 'c'], steps: 3, ...WINDOW }), {
      startEvent: 'a',
      exclude: ['b', 'c'],
      steps: '3',
      ...WINDOW,
    })
    const chart = TOOLS.find((tool) => tool.name === 'get_chart') as (typeof TOOLS)[number]
    assert.deepEqual(chart.params({ series: CHART_SERIES, previous: true }), { series: JSON.stringify(CHART_SERIES), previous: 'true' })
  })
})

describe('POST /mcp with the MCP SDK client', function () {
  this.timeout(60_000)
  let h: Harness
  let auth: Record<string, string>
  let gateway: { url: URL; close(): Promise<void> }
  let client: Client

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_MAX_CONCURRENT_QUERIES: '32' }, now: NOW })
    const root = await loadGolden(h.engine)
    auth = { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
    gateway = await listen(h.app)
    client = await connect(gateway.url, auth)
  })
  after(async () => {
    await client?.close()
    await gateway?.close()
    await h?.close()
  })

  const call = (name: string, args: Record<string, unknown>, by = client) => by.callTool({ name, arguments: args })

  it('lists exactly the tools whose route exists, with projectId required of a root client', async () => {
    const { tools } = await client.listTools()
    const paths = new Set(ROUTES.map((route) => route.path))
    const expected = TOOLS.filter((tool) => paths.has(tool.route)).map((tool) => tool.name)
    assert.deepEqual(
      tools.map((tool) => tool.name),
      expected,
    )
    // The routes on this branch: OpenPanel's tools on them, and Quarry's own.
    for (const name of [
      'list_event_names',
      'list_event_properties',
      'get_event_property_values',
      'query_sessions',
      'get_entry_exit_pages',
      'get_funnel',
      'get_funnel_with_step_filters',
      'get_paths',
      'list_sessions',
      'get_chart',
    ])
      assert.ok(expected.includes(name), name)
    const funnel = tools.find((tool) => tool.name === 'get_funnel')
    assert.deepEqual(funnel?.inputSchema.required, ['projectId', 'steps'])
    assert.equal(funnel?.annotations?.readOnlyHint, true)
  })

  it("answers each offered tool's question as the GET of its route answers it, and as the reference model where it has the route", async () => {
    const offered = new Set((await client.listTools()).tools.map((tool) => tool.name))
    const asked = CASES.filter((question) => offered.has(question.tool))
    assert.deepEqual(
      [...offered].filter((name) => !CASES.some((question) => question.tool === name)),
      [],
      'every offered tool has a question here',
    )
    for (const question of asked) {
      const { body, isError } = parsed(await call(question.tool, { projectId: 'shop', ...question.args }))
      const rest = await request(h.app).get(question.path).query(question.query).set(auth)
      assert.equal(isError, question.refused === true, `${question.tool}: ${JSON.stringify(body)}`)
      if (isError) {
        assert.notEqual(rest.status, 200, `${question.tool}: ${JSON.stringify(body)}`)
        assert.deepEqual(withoutRequestId(body), withoutRequestId(rest.body), question.tool)
        continue
      }
      assert.equal(rest.status, 200, `${question.tool}: ${JSON.stringify(rest.body)}`)
      assert.deepEqual(body, rest.body, question.tool)
      if (question.model) assert.deepEqual(body, question.model(question.query), `${question.tool}, the reference model`)
    }
  })

  it("shares the route's result cache: a GET after the same tool call is a hit", async () => {
    const window = { startDate: '2024-03-28', endDate: '2024-04-01' }
    const { body } = parsed(await call('get_entry_exit_pages', { projectId: 'shop', ...window, mode: 'entry' }))
    const rest = await request(h.app)
      .get('/insights/shop/pages/entry_exit')
      .query({ ...window, mode: 'entry', limit: '50' })
      .set(auth)
    assert.equal(rest.status, 200)
    assert.equal(rest.headers['x-cache'], 'hit')
    assert.deepEqual(rest.body, body)
  })

  it('reads the last 30 days when a tool is given no dates, as OpenPanel does', async () => {
    const { body } = parsed(await call('get_funnel', { projectId: 'shop', steps: ['add_to_cart', 'purchase'] }))
    const query = { range: '30d', steps: ['add_to_cart', 'purchase'] }
    assert.deepEqual(body, answerBehaviour({ ...common, resource: 'funnel', query }).body)
  })

  it('refuses a call for another project, or a root call without one, as the route does, and keeps the session', async () => {
    const blog = await createApiClient(h.engine, { type: 'read', projectId: 'blog' })
    const reader = await connect(gateway.url, { 'openpanel-client-id': blog.id, 'openpanel-client-secret': blog.secret })
    try {
      const { tools } = await reader.listTools()
      assert.deepEqual(tools.find((tool) => tool.name === 'get_funnel')?.inputSchema.required, ['steps'])
      const other = parsed(await call('get_funnel', { projectId: 'shop', steps: ['a', 'b'] }, reader))
      assert.equal(other.isError, true)
      assert.equal(other.body.error, 'Forbidden')
      assert.equal(other.body.message, 'This client cannot read that project')
      const own = parsed(await call('get_funnel', { steps: ['screen_view', 'screen_view'], range: '12m' }, reader))
      assert.equal(own.isError, false, JSON.stringify(own.body))
      const blogEvents = goldenEvents('blog')
      const query = { range: '12m', steps: ['screen_view', 'screen_view'] }
      assert.deepEqual(own.body, answerBehaviour({ events: blogEvents, projectTimezone: 'UTC', now: NOW, resource: 'funnel', query }).body)
    } finally {
      await reader.close()
    }
    const none = parsed(await call('get_funnel', { steps: ['a', 'b'] }))
    assert.equal(none.isError, true)
    assert.equal(none.body.error, 'Bad Request')
    assert.deepEqual(none.body.details.issues, [{ path: ['projectId'], message: '"projectId" is required for a root client' }])
    const missing = parsed(await call('get_funnel', { projectId: 'nowhere', steps: ['a', 'b'] }))
    assert.equal(missing.body.error, 'Not Found')
  })

  it("answers bad arguments and a cap with the route's 400 body listing every problem, and the session goes on", async () => {
    const bad = parsed(await call('get_funnel', { projectId: 'shop', steps: ['purchase'], windowHours: 0, colour: 'red' }))
    assert.equal(bad.isError, true)
    assert.equal(bad.body.error, 'Bad Request')
    assert.deepEqual((bad.body.details.issues as { path: string[] }[]).map((issue) => issue.path.join('.')).sort(), [
      'colour',
      'steps',
      'windowHours',
    ])
    // A route's own check: a funnel's filters may not be a tree.
    const tree = parsed(await call('get_funnel', { projectId: 'shop', ...WINDOW, steps: ['a', 'b'], filters: MOBILE_OR_BUYER }))
    const treeRest = await request(h.app)
      .get('/insights/shop/funnel')
      .query({ ...WINDOW, steps: ['a', 'b'], filters: JSON.stringify(MOBILE_OR_BUYER) })
      .set(auth)
    assert.equal(tree.isError, true)
    assert.equal(treeRest.status, 400)
    assert.deepEqual(withoutRequestId(tree.body), withoutRequestId(treeRest.body))
    // A cost cap: a chart by the minute over 30 days is refused before anything runs.
    const series = [{ name: 'screen_view' }]
    const capped = parsed(await call('get_chart', { projectId: 'shop', series, interval: 'minute', range: '30d' }))
    const cappedRest = await request(h.app)
      .get('/export/charts')
      .query({ projectId: 'shop', series: JSON.stringify(series), interval: 'minute', range: '30d' })
      .set(auth)
    assert.equal(cappedRest.status, 400)
    assert.equal(capped.isError, true)
    assert.match(capped.body.message, /cells/)
    assert.deepEqual(withoutRequestId(capped.body), withoutRequestId(cappedRest.body))
    await assert.rejects(call('no_such_tool', {}), /No tool "no_such_tool"/)
    const after = parsed(await call('get_funnel', { projectId: 'shop', ...WINDOW, steps: ['add_to_cart', 'purchase'] }))
    assert.equal(after.isError, false)
  })

  it('authenticates before reading the body: no or wrong credentials are a 401, GET is a 405', async () => {
    for (const headers of [{}, { ...auth, 'openpanel-client-secret': 'wrong' }]) {
      const refused = await connect(gateway.url, headers).then(
        () => undefined,
        (error: unknown) => error,
      )
      assert.ok(refused instanceof StreamableHTTPError, String(refused))
      assert.equal(refused.code, 401)
    }
    const garbage = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc": [' })
    assert.equal(garbage.status, 401)
    const get = await fetch(gateway.url, { headers: auth })
    assert.equal(get.status, 405)
  })

  it("takes one rate-limit token per tool call and per other request from the REST routes' count, a refused call a 429 body", async () => {
    const app = createApp({
      config: { ...h.config, rateLimit: { requests: 5, windowMs: 60_000 } },
      runner: h.runner,
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => NOW,
    })
    const limited = await listen(app)
    // initialize: one token (its notification none); tools/list: one; the GET: one; two calls: one each.
    const limitedClient = await connect(limited.url, auth)
    try {
      await limitedClient.listTools()
      const rest = await request(app).get('/insights/shop/events/names').set(auth)
      assert.equal(rest.status, 200)
      for (let index = 0; index < 2; index++)
        assert.equal(parsed(await call('list_event_names', { projectId: 'shop' }, limitedClient)).isError, false)
      const refused = parsed(await call('list_event_names', { projectId: 'shop' }, limitedClient))
      assert.equal(refused.isError, true)
      assert.equal(refused.body.error, 'Too Many Requests')
      assert.match(refused.body.message, /More than 5 requests/)
      assert.equal((await request(app).get('/insights/shop/events/names').set(auth)).status, 429)
      const listed = await limitedClient.listTools().then(
        () => undefined,
        (error: unknown) => error,
      )
      assert.ok(listed instanceof StreamableHTTPError, String(listed))
      assert.equal(listed.code, 429)
    } finally {
      await limitedClient.close()
      await limited.close()
    }
  })

  it('query_sessions ANDs an attribute with a filter tree: the 8 Safari sessions on mobile or with a purchase', async () => {
    const { body } = parsed(await call('query_sessions', { projectId: 'shop', ...WINDOW, filters: MOBILE_OR_BUYER, browser: 'Safari' }))
    const sessions = (Array.isArray(body) ? body : body.data) as { browser: string }[]
    assert.equal(sessions.length, 8)
    assert.ok(sessions.every((session) => session.browser === 'Safari'))
  })

  // The cases of OpenPanel's packages/mcp/src/integration/tools.test.ts that apply here, on the golden shop
  // (numbers worked out by hand from fixtures/golden/shop.ndjson over WINDOW, Europe/Berlin).
  describe("OpenPanel's tool cases", () => {
    it('get_funnel counts the sessions that went from a page view to a purchase', async () => {
      const { body } = parsed(await call('get_funnel', { projectId: 'shop', ...WINDOW, steps: ['screen_view', 'purchase'] }))
      assert.deepEqual(
        body.steps.map((step: { eventName: string; users: number }) => [step.eventName, step.users]),
        [
          ['screen_view', 38],
          ['purchase', 7],
        ],
      )
      assert.equal(body.totalUsers, 38)
      assert.equal(body.completedUsers, 7)
      assert.ok(body.overallConversionRate > 0)
    })

    it('get_funnel completes nothing in an order nobody followed', async () => {
      // The one app_open (s-shop-10) is in a session without a purchase.
      const { body } = parsed(await call('get_funnel', { projectId: 'shop', ...WINDOW, steps: ['purchase', 'app_open'] }))
      assert.equal(body.steps[0].users, 7)
      assert.equal(body.completedUsers, 0)
    })

    it('query_sessions filters by browser: the 18 sessions of the window that began in Chrome', async () => {
      const { body } = parsed(await call('query_sessions', { projectId: 'shop', ...WINDOW, browser: 'Chrome', limit: 100 }))
      // Quarry's page of sessions is { meta, data }; OpenPanel's (issue 42) a bare array.
      const sessions = (Array.isArray(body) ? body : body.data) as { id: string; browser: string }[]
      assert.equal(sessions.length, 18)
      assert.ok(sessions.every((session) => session.browser === 'Chrome'))
      assert.ok(sessions.some((session) => session.id === 's-shop-03'))
    })

    it('get_entry_exit_pages answers a list for entry and for exit', async () => {
      for (const mode of ['entry', 'exit']) {
        const { body, isError } = parsed(await call('get_entry_exit_pages', { projectId: 'shop', ...WINDOW, mode }))
        assert.equal(isError, false)
        assert.ok(Array.isArray(body) && body.length > 0, mode)
      }
    })

    it('get_user_flow refuses "between" without endEvent, naming it', async function () {
      const offered = (await client.listTools()).tools.some((tool) => tool.name === 'get_user_flow')
      if (!offered) this.skip()
      const { body, isError } = parsed(
        await call('get_user_flow', { projectId: 'shop', ...WINDOW, startEvent: 'screen_view', mode: 'between' }),
      )
      assert.equal(isError, true)
      assert.match(JSON.stringify(body), /endEvent/)
    })
  })
})
