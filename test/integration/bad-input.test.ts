// Bad input never hurts the gateway: seeded random junk for every parameter of every route must get a
// 2xx or a 4xx that lists its problems, never a 5xx.
import assert from 'node:assert/strict'
import { request } from '../support/openapi-request'
import { ROUTES, schemaOf } from '../../server/http/routes'
import { loadGolden, startHarness, type Harness } from '../support/harness'
import { Random } from '../support/random'

const ROUNDS = Number(process.env.QUARRY_FUZZ_ROUNDS ?? 12)
const JUNK = [
  '', ' ', 'null', '[]', '{}', '[{}]', '[{"name":"country"}]', '-1', '0', '1e309', '99999999999999999999', 'NaN', 'true',
  "'; DROP TABLE events; --", '\\', '\u0000', '%', '😀', 'ü'.repeat(3000), '[{"name":"path","operator":"regex","value":["("]}]',
  '[{"name":"properties.x","operator":"gt","value":[1e400]}]', '2024-02-30', '2024-03-31T02:30:00+01:00', '9999-12-31', 'Europe/Nowhere',
  '[{"name":"*","segment":"property_sum","property":"properties.\'"}]', '[{"type":"formula","formula":"A/0"}]', 'A'.repeat(100000),
]

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
    const random = new Random(Number(process.env.QUARRY_FUZZ_SEED ?? 99))
    for (const route of ROUTES) {
      const names = Object.keys((schemaOf(route) as { properties?: object }).properties ?? {})
      for (let n = 0; n < ROUNDS; n += 1) {
        const query = new URLSearchParams()
        for (const name of names) if (random.chance(0.4)) query.append(name, random.pick(JUNK))
        if (random.chance(0.2)) query.append(random.pick(names.length ? names : ['x']), random.pick(JUNK))
        if (random.chance(0.1)) query.append('unknown', '1')
        if (route.path.startsWith('/export') && random.chance(0.7)) query.set('projectId', 'shop')
        const url = `${route.path.replace(':projectId', random.chance(0.9) ? 'shop' : random.pick(JUNK) || 'x')}?${query}`
        const res = await request(h.app).get(url).set(auth)
        assert.ok(res.status < 500, `${res.status} for GET ${url.slice(0, 300)}: ${JSON.stringify(res.body).slice(0, 300)}`)
        if (res.status === 400) assert.ok(res.body.details.issues.length >= 1, url.slice(0, 300))
      }
    }
  })
})
