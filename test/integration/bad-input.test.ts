// Bad input never hurts the gateway: seeded random junk for every parameter of every route must get a
// 2xx or a 4xx that lists its problems, never a 5xx. (`bench/fuzz.ts` sends 10,000 of the same kind.)
import assert from 'node:assert/strict'
import { request } from '../support/openapi-request'
import { ROUTES } from '../../server/routes/routes'
import { junkRequests } from '../support/fuzz'
import { loadGolden, startHarness, type Harness } from '../support/harness'

const ROUNDS = Number(process.env.QUARRY_FUZZ_ROUNDS ?? 12)

describe('bad input (randomized)', function () {
  this.timeout(300_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: new Date('2024-04-01T12:00:00Z') })
    const root = await loadGolden(h.engine)
    auth = { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  })
  after(() => h.close())

  it(`answers ${ROUNDS} junk requests per route with 2xx/4xx only`, async () => {
    let sent = 0
    for (const url of junkRequests({ seed: Number(process.env.QUARRY_FUZZ_SEED ?? 99), rounds: ROUNDS, projectId: 'shop' })) {
      const res = await request(h.app).get(url).set(auth)
      sent += 1
      assert.ok(res.status < 500, `${res.status} for GET ${url.slice(0, 300)}: ${JSON.stringify(res.body).slice(0, 300)}`)
      if (res.status === 400) assert.ok(res.body.details.issues.length >= 1, url.slice(0, 300))
    }
    assert.equal(sent, ROUTES.length * ROUNDS)
  })
})

describe('strict numbers and named values over HTTP', function () {
  this.timeout(120_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    h = await startHarness({ now: new Date('2024-04-01T12:00:00Z') })
    const root = await loadGolden(h.engine)
    auth = { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  })
  after(() => h.close())

  const issuesOf = async (url: string) => {
    const res = await request(h.app).get(url).set(auth).expect(400)
    return (res.body.details.issues as { path: (string | number)[]; message: string }[]).map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    )
  }

  it('400s numbers written in hex or with blanks, encoded or not, on every kind of route', async () => {
    const funnel = '/insights/shop/funnel?steps=signup&steps=purchase'
    for (const text of ['0x10', '%205', '5%20', '%2B5', '1e1']) {
      assert.deepEqual(
        await issuesOf(`${funnel}&windowHours=${text}`),
        ['windowHours: "windowHours" must be a decimal integer (digits only)'],
        text,
      )
    }
    assert.deepEqual((await issuesOf('/insights/shop/pages?limit=0x10&cursor=%202')).sort(), [
      'cursor: "cursor" must be a decimal integer (digits only)',
      'limit: "limit" must be a decimal integer (digits only)',
    ])
    assert.deepEqual(await issuesOf('/export/events?projectId=shop&limit=0o7'), ['limit: "limit" must be a decimal integer (digits only)'])
    await request(h.app).get(`${funnel}&windowHours=16`).set(auth).expect(200)
  })

  it('names the allowed values of a wrong or missing enum parameter', async () => {
    assert.deepEqual(await issuesOf('/insights/shop/metrics?range=90d'), [
      'range: "range" must be one of: 30min, lastHour, last24h, today, yesterday, 7d, 30d, 3m, 6m, 12m, monthToDate, lastMonth, yearToDate, lastYear, custom',
    ])
    assert.deepEqual(await issuesOf('/insights/shop/pages/entry_exit?mode=both'), ['mode: "mode" must be one of: entry, exit'])
  })
})
