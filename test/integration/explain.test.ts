// An explained request cannot differ from a served one: the statements the gateway runs for a request
// (recorded at the runner, on the embedded engine) are exactly those `explain` prints for the same URL,
// and a request the gateway refuses is one explain refuses too.
import assert from 'node:assert/strict'
import type express from 'express'
import { request } from '../support/openapi-request'
import type { CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { bindCheckRows, type SettledRow } from '../../queries/core/settled-days'
import { createApp } from '../../server/http/app'
import { createProject } from '../../server/admin/control'
import { resolveRequest } from '../../server/admin/explain'
import { statementsOf } from '../../queries/run/statements'
import { resourceOf } from '../../server/http/routes'
import { createLogger } from '../../server/logger'
import { rootHeaders, startHarness, type Harness } from '../support/harness'
import { recording } from '../support/recording-runner'

const NOW = new Date('2024-03-31T12:00:00Z')
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

const statementKey = (compiled: CompiledQuery) => JSON.stringify([compiled.template, compiled.sql, compiled.params])

describe('explain agrees with the gateway', function () {
  this.timeout(120_000)
  let h: Harness
  let app: express.Express
  let auth: Record<string, string>
  const ran: CompiledQuery[] = []

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: NOW })
    await createProject(h.engine, PROJECT)
    auth = await rootHeaders(h.engine)
  })
  // A new app for each request: an app reuses a settled check's rows while the data version holds, and
  // then runs one statement fewer than explain prints.
  beforeEach(() => {
    app = createApp({ config: h.config, runner: recording(h.runner, ran), directory: h.directory, logger: createLogger('error', true), clock: () => NOW })
  })
  after(() => h.close())

  async function explained(url: string): Promise<CompiledQuery[]> {
    const resolved = await resolveRequest(url)
    assert.ok(resolved, `${url} resolves`)
    const scope = { project: PROJECT, now: NOW, sessionLookbackMs: h.config.sessionLookbackHours * 3_600_000 }
    const statements = statementsOf(resourceOf(resolved.route), resolved.query, scope, true).map((statement) => statement.compiled)
    const check = statements.find((compiled) => compiled.template === 'insights.settled_days')
    if (!check) return statements
    // The statement after a check runs with the check's rows bound, as the gateway binds them.
    const { rows } = await h.runner.run<SettledRow>(check)
    return statements.map((compiled) => (compiled === check ? compiled : bindCheckRows(compiled, rows)))
  }

  for (const url of SERVED) {
    it(`runs exactly the statements explain prints: ${url.slice(0, 90)}`, async () => {
      ran.length = 0
      const res = await request(app).get(url).set(auth)
      assert.equal(res.status, 200, res.text)
      const expected = await explained(url)
      assert.ok(expected.length > 0)
      assert.deepEqual(ran.map(statementKey).sort(), expected.map(statementKey).sort())
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
        resolveRequest(url).then((resolved) => resolved && statementsOf(resourceOf(resolved.route), resolved.query, { project: PROJECT, now: NOW, sessionLookbackMs: 0 }, true)),
        (error: QueryError) => error instanceof QueryError && error.code === 'invalid_request',
      )
    })
  }
})
