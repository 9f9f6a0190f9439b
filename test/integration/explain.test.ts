// An explained request cannot differ from a served one: the statements the gateway runs for a request
// (recorded at the runner, on the embedded engine) are exactly those `explain` prints for the same URL, the
// same SQL text and params, a session question's compiled with the settled days its check returns; and a
// request the gateway refuses is one explain refuses too. Every route is asked its example requests (the
// SQL catalogue's), over events whose settled days are compacted.
import assert from 'node:assert/strict'
import type express from 'express'
import { request } from '../support/openapi-request'
import type { CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import type { SettledRow } from '../../queries/core/pipeline'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createApp } from '../../server/http/app'
import { createProject } from '../../server/admin/control'
import { explainRequest, resolveRequest } from '../../server/admin/explain'
import { statementsOf } from '../../queries/run/statements'
import { ROUTES, resourceOf, type Route } from '../../server/routes/routes'
import { examplesFor } from '../../server/routes/examples'
import { createLogger } from '../../server/logger'
import { goldenEvents, insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { recording } from '../support/recording-runner'

/** A day after the golden shop's last event: the days before the session lookback are settled and compacted. */
const NOW = new Date('2024-04-03T12:00:00Z')
const PROJECT = { id: 'shop', name: 'Shop', timezone: 'Europe/Berlin' }

const SERVED = [
  '/insights/shop/live',
  '/INSIGHTS/shop/Metrics/?range=7d&interval=day&filters=[{"name":"country","operator":"is","value":["DE"]},{"name":"path","operator":"contains","value":["a+b"]}]',
  '/insights/sh%6Fp/referrer?range=30d&limit=3&cursor=2&filters=[{"name":"properties.plan","operator":"gt","value":[1]}]',
  '/insights/shop/pages?startDate=2024-03-01&endDate=2024-03-31&filters=[{"name":"name","operator":"isNot","value":["purchase"]}]',
  '/insights/shop/region?timezone=America%2FNew_York',
  '/export/charts?projectId=shop&series=[{"name":"screen_view","segment":"user"},{"name":"*"}]&breakdowns=[{"name":"country"}]&previous=true',
  '/export/events?project_id=shop&page=2&limit=3&event=screen_view,purchase',
  '/export/events?projectId=shop&format=csv&includes=geo,device&start=2024-03-01',
  '/export/events?projectId=shop&format=ndjson&filters=[{"name":"properties.plan","operator":"is","value":["pro"]}]',
]

const REFUSED: [string, number][] = [
  ['/insights/shop/pages?limit=5&limit=6', 400],
  ['/insights/shop/pages?bogus=1', 400],
  ['/export/events?projectId=shop&format=csv&limit=5', 400],
  ['/insights/%E0%A4%A/live', 400],
  ['/insights/shop/nothing', 404],
]

const statementKey = (compiled: Pick<CompiledQuery, 'template' | 'sql' | 'params'>) =>
  JSON.stringify([compiled.template, compiled.sql, compiled.params])

/** The statements of an explain text, as printed: each one's template, params and SQL. */
function printedStatements(text: string): Pick<CompiledQuery, 'template' | 'sql' | 'params'>[] {
  return text.split(/\n\n(?=-- statement: )/).map((block) => {
    const lines = block.split('\n').filter((line, index) => index > 0 || !line.startsWith('-- statement: '))
    const template = /^-- template: (.+)$/.exec(lines[0])?.[1]
    const paramsEnd = lines.indexOf('-- }')
    assert.ok(template && lines[1].startsWith('-- params: {') && paramsEnd > 1, block.slice(0, 300))
    const json = [lines[1].slice('-- params: '.length), ...lines.slice(2, paramsEnd + 1).map((line) => line.slice(3))].join('\n')
    return { template, params: JSON.parse(json) as CompiledQuery['params'], sql: lines.slice(paramsEnd + 1).join('\n') }
  })
}

/** A route's URL for one example query string, on the golden shop; a path value (a profile's id) fills its segment. */
function exampleUrl(route: Route, query: Record<string, string>): string {
  const names = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => name)
  const rest = Object.fromEntries(Object.entries(query).filter(([name]) => !names.includes(name)))
  const search = new URLSearchParams(route.projectFrom === 'query' ? { projectId: PROJECT.id, ...rest } : rest).toString()
  const path = route.path.replace(/:(\w+)/g, (_, name: string) => (name === 'projectId' ? PROJECT.id : encodeURIComponent(query[name])))
  return `${path}${search ? `?${search}` : ''}`
}

/**
 * Every route's example requests, but those with profiles: which profiles a page or chunk looks up follows
 * from its rows, which explain does not have (it prints the look-up of none).
 */
const EXAMPLES = ROUTES.flatMap((route) =>
  examplesFor(route)
    .filter((query) => !query.includes?.split(',').includes('profile'))
    .map((query) => ({ route, url: exampleUrl(route, query) })),
)

describe('explain agrees with the gateway', function () {
  this.timeout(300_000)
  let h: Harness
  let app: express.Express
  let auth: Record<string, string>
  const ran: CompiledQuery[] = []

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: NOW })
    await createProject(h.engine, PROJECT)
    await insertRawEvents(h.engine, goldenEvents(PROJECT.id), PROJECT.id)
    // The profile and the group the people routes' examples open (server/routes/examples.ts).
    await h.engine.client.insert({
      table: 'profiles',
      values: [
        {
          id: 'user-anna',
          project_id: PROJECT.id,
          email: 'anna@example.com',
          created_at: '2024-01-15 08:00:00.000',
          last_seen_at: '2024-04-02 10:04:59.999',
          groups: ['acme'],
        },
      ],
      format: 'JSONEachRow',
    })
    await h.engine.client.insert({
      table: 'groups',
      values: [{ id: 'acme', project_id: PROJECT.id, type: 'company', name: 'Acme', created_at: '2024-01-01 00:00:00.000', version: 1 }],
      format: 'JSONEachRow',
    })
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.ok(report.days > 0, JSON.stringify(report))
    auth = await rootHeaders(h.engine)
  })
  // A new app for each request: an app reuses a settled check's rows while the data version holds, and
  // cached rows, and then runs fewer statements than explain prints.
  beforeEach(() => {
    app = createApp({
      config: h.config,
      runner: recording(h.runner, ran),
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => NOW,
    })
  })
  after(() => h.close())

  /** What explain prints for `url` on this engine: a session question's check run first, on the same data. */
  async function explained(url: string) {
    const scopeFor = (id: string) => ({
      project: { ...PROJECT, id },
      now: NOW,
      sessionLookbackMs: h.config.sessionLookbackHours * 3_600_000,
    })
    const runCheck = async (check: CompiledQuery) => (await h.runner.run<SettledRow>(check)).rows
    return printedStatements(await explainRequest(url, scopeFor, true, runCheck))
  }

  async function agrees(url: string): Promise<CompiledQuery[]> {
    ran.length = 0
    const res = await request(app).get(url).set(auth)
    assert.equal(res.status, 200, res.text)
    const expected = await explained(url)
    assert.ok(expected.length > 0)
    assert.deepEqual(ran.map(statementKey).sort(), expected.map(statementKey).sort(), url)
    return [...ran]
  }

  it('asks every route at least one example request', () => {
    assert.deepEqual(
      ROUTES.filter((route) => !EXAMPLES.some((example) => example.route === route)).map((route) => route.path),
      [],
    )
  })

  /** The most settled days a session route's statements were compiled with, by route. */
  const settledSeen = new Map<string, number>()

  for (const { route, url } of EXAMPLES) {
    it(`runs exactly the statements explain prints: ${url.slice(0, 110)}`, async () => {
      const statements = await agrees(url)
      if (!route.resource.settledCheck) return
      // A session question runs its check, then its statement (and those run beside it), compiled with the
      // settled days the check gave.
      assert.deepEqual(
        statements.map((statement) => statement.template === 'insights.settled_days'),
        [true, ...statements.slice(1).map(() => false)],
        url,
      )
      const days = Math.max(
        ...statements.slice(1).map((statement) => ((statement.params.settledDays as string[] | undefined) ?? []).length),
      )
      settledSeen.set(route.path, Math.max(days, settledSeen.get(route.path) ?? 0))
    })
  }

  it('compiled every session route with settled days for some example', () => {
    const sessionRoutes = ROUTES.filter((route) => route.resource.settledCheck).map((route) => route.path)
    assert.ok(sessionRoutes.length >= 5)
    assert.deepEqual(
      sessionRoutes.filter((path) => !(settledSeen.get(path) ?? 0)),
      [],
    )
  })

  for (const url of SERVED) {
    it(`runs exactly the statements explain prints: ${url.slice(0, 90)}`, async () => {
      await agrees(url)
    })
  }

  for (const [url, status] of REFUSED) {
    it(`refuses what the gateway refuses (${status}): ${url}`, async () => {
      ran.length = 0
      const res = await request(app).get(url).set(auth)
      assert.equal(res.status, status, res.text)
      assert.deepEqual(ran, [], 'nothing ran')
      if (status === 404) {
        assert.equal(await resolveRequest(url), undefined)
        return
      }
      await assert.rejects(
        resolveRequest(url).then(
          (resolved) =>
            resolved &&
            statementsOf(resourceOf(resolved.route), resolved.query, { project: PROJECT, now: NOW, sessionLookbackMs: 0 }, true),
        ),
        (error: QueryError) => error instanceof QueryError && error.code === 'invalid_request',
      )
    })
  }
})
