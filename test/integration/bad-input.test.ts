// Bad input never hurts the gateway: seeded random junk for every parameter of every route must get a
// 2xx or a 4xx that lists its problems, never a 5xx. (`bench/fuzz.ts` sends 10,000 of the same kind.)
import assert from 'node:assert/strict'
import { request } from '../support/openapi-request'
import { ROUTES } from '../../server/http/routes'
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
