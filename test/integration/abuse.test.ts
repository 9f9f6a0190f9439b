// A hostile client (issue 8), on one gateway with one read client: every costly request is refused with
// a 400 that says how to narrow it, before any data statement runs; a bad Host header and a flood of
// junk client ids do not hurt valid requests. (The ordering checks against a second client belong with
// the engine scheduler.)
import assert from 'node:assert/strict'
import request from 'supertest'
import { createApiClient } from '../../server/admin/control'
import { loadGolden, startHarness, type Harness } from '../support/harness'

describe('a hostile read client', function () {
  let h: Harness
  let auth: Record<string, string>
  const dataStatements: string[] = []

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_WINDOW_MS: '600000' }, now: new Date('2024-04-01T12:00:00Z') })
    await loadGolden(h.engine)
    const reader = await createApiClient(h.engine, { type: 'read', projectId: 'shop', name: 'hostile reader' })
    auth = { 'openpanel-client-id': reader.id, 'openpanel-client-secret': reader.secret }
    const run = h.runner.run.bind(h.runner)
    h.runner.run = ((query, options) => {
      if (!query.template.startsWith('control')) dataStatements.push(query.template)
      return run(query, options)
    }) as typeof run
  })
  after(() => h.close())
  beforeEach(() => {
    dataStatements.length = 0
  })

  async function refused(url: string, issue: RegExp): Promise<void> {
    const res = await request(h.app).get(url).set(auth)
    assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`)
    assert.equal(res.body.error, 'Bad Request')
    assert.ok(res.body.details.issues.some((item: { message: string }) => issue.test(item.message)), `${url}: ${JSON.stringify(res.body.details.issues)}`)
    assert.deepEqual(dataStatements, [], `${url} ran no data statement`)
  }

  it('gets a 400 for minute-interval metrics over 30 days, 12 months or since 1970', async () => {
    for (const dates of ['range=30d', 'range=12m', 'startDate=1970-01-01']) {
      await refused(`/insights/shop/metrics?${dates}&interval=minute`, /this series would have \d+ buckets, more than 5000: narrow the window or widen the interval/)
    }
  })

  it('gets a 400 for a chart of a millennium of days, and for one past the cell cap', async () => {
    const series = encodeURIComponent('[{"name":"*"}]')
    await refused(`/export/charts?projectId=shop&series=${series}&interval=day&startDate=1000-01-01&endDate=1999-12-31`, /from 1970-01-01 to 2199-12-31/)
    await refused(`/export/charts?projectId=shop&series=${series}&interval=day&startDate=1970-01-01&endDate=2199-12-31`, /84006 cells .* more than 20000: narrow the window/)
  })

  it('gets a 400 for 100 alternation-heavy regex values', async () => {
    const values = Array.from({ length: 100 }, (_, i) => `^(/(a|b|c|d)+)+${i}(x|y|z)*$`)
    const filters = encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'regex', value: values }]))
    await refused(`/export/events?projectId=shop&limit=1&filters=${filters}`, /at most 20 patterns, got 100/)
    await refused(`/insights/shop/pages?filters=${filters}`, /at most 20 patterns/)
  })

  it('gets a 400 pointing to cursor for a page deep in the export', async () => {
    await refused('/export/events?projectId=shop&page=10000000&limit=1000', /skips 9999999000 rows, more than 100000: follow "cursor"/)
    const shallow = await request(h.app).get('/export/events?projectId=shop&page=2&limit=5').set(auth)
    assert.equal(shallow.status, 200)
  })

  it('gets a 400, not a 500, for an end date in the year 9999', async () => {
    await refused('/insights/shop/metrics?startDate=2024-01-01&endDate=9999-12-31', /"endDate" must be .* from 1970-01-01 to 2199-12-31/)
    await refused('/export/events?projectId=shop&start=2024-01-01&end=9999-12-31', /"end" must be/)
  })

  it('gets a working Link header whatever its Host header says', async () => {
    for (const host of ['bad host', '[::1', 'a:b:c', '%']) {
      const res = await request(h.app).get('/insights/shop/pages?startDate=2024-03-20&endDate=2024-04-01&limit=1').set(auth).set('Host', host)
      assert.equal(res.status, 200, `Host ${host}: ${JSON.stringify(res.body)}`)
      assert.equal(res.headers.link, '</insights/shop/pages?startDate=2024-03-20&endDate=2024-04-01&limit=1&cursor=2>; rel="next"')
    }
  })

  it('cannot lock the valid client out with failed attempts from the same address', async () => {
    const junk = { 'openpanel-client-id': '00000000-0000-4000-8000-000000000000', 'openpanel-client-secret': 'nope' }
    const statuses: number[] = []
    for (let n = 0; n < 105; n += 1) statuses.push((await request(h.app).get('/insights/shop/live').set(junk)).status)
    assert.deepEqual([...new Set(statuses.slice(0, 100))], [401])
    assert.deepEqual([...new Set(statuses.slice(100))], [429], 'the junk id is limited after 100 failures')
    for (let n = 0; n < 105; n += 1) {
      const other = { ...junk, 'openpanel-client-id': `00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}` }
      assert.equal((await request(h.app).get('/insights/shop/live').set(other)).status, 401)
    }
    await request(h.app).get('/insights/shop/live').set(auth).expect(200)
  })
})
