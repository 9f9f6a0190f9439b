// OpenPanel's own cases for its insights router (Openpanel-dev/openpanel, apps/api/src/routes/insights.router.test.ts
// at ed7bdddb: 32 requests and what each answer must show), asked of Quarry on the same fixture. A client written
// for OpenPanel's REST API should work by changing only its base URL; each case here is one of those requests.
// Every answer is also checked against /openapi.json.
import assert from 'node:assert/strict'
import { type Harness, startHarness } from '../support/harness'
import { request } from '../support/openapi-request'
import { loadOpenPanelFixture, OPENPANEL_PROJECT, PEOPLE } from '../support/openpanel-fixture'
import { createApiClient } from '../../server/admin/control'

const NOW = new Date('2026-11-20T12:00:00.000Z')
const BASE = `/insights/${OPENPANEL_PROJECT.id}`

interface Person {
  email: string
}
interface Named {
  name: string
}

describe("OpenPanel's insights router cases", function () {
  this.timeout(120_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: NOW })
    await loadOpenPanelFixture(h.engine, NOW)
    const client = await createApiClient(h.engine, { type: 'read', projectId: OPENPANEL_PROJECT.id, name: 'router cases' })
    auth = { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
  })
  after(() => h.close())

  const get = (path: string, headers: Record<string, string> = auth) => request(h.app).get(`${BASE}${path}`).set(headers)

  describe('auth', () => {
    it('returns 401 when no client-id header is present', async () => {
      const res = await get('/events/names', {})
      assert.equal(res.status, 401)
    })

    it('returns 401 when client-id is not a valid UUID', async () => {
      const res = await get('/events/names', { 'openpanel-client-id': 'not-a-uuid', 'openpanel-client-secret': 'test-secret' })
      assert.equal(res.status, 401)
    })

    it('returns 200 with valid credentials', async () => {
      const res = await get('/events/names')
      assert.equal(res.status, 200)
    })
  })

  describe('GET /insights/:projectId/events/names', () => {
    it('returns event_names array', async () => {
      const res = await get('/events/names')
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body))
    })

    it('includes events from fixture data', async () => {
      const res = await get('/events/names')
      for (const name of ['session_start', 'page_view', 'session_end']) assert.ok(res.body.includes(name), `${name} in ${res.text}`)
    })
  })

  describe('GET /insights/:projectId/events', () => {
    it('returns events array', async () => {
      const res = await get('/events')
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body))
    })

    it('respects limit parameter', async () => {
      const res = await get('/events?limit=2')
      assert.equal(res.status, 200)
      assert.ok(res.body.length <= 2, res.text)
    })

    it('filters by eventNames', async () => {
      const res = await get('/events?eventNames=purchase')
      assert.equal(res.status, 200)
      assert.ok(
        (res.body as Named[]).every((event) => event.name === 'purchase'),
        res.text,
      )
    })

    it('returns 400 when limit is out of range', async () => {
      const res = await get('/events?limit=9999')
      assert.equal(res.status, 400)
    })
  })

  describe('GET /insights/:projectId/events/properties', () => {
    it('returns columns + properties arrays', async () => {
      const res = await get('/events/properties')
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body.columns), res.text)
      assert.ok(res.body.columns.includes('path'), res.text)
      assert.ok(Array.isArray(res.body.properties), res.text)
    })
  })

  describe('GET /insights/:projectId/events/property_values', () => {
    it('returns values for a known property', async () => {
      const res = await get('/events/property_values?eventName=page_view&propertyKey=path')
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body.values), res.text)
    })

    it('returns 400 when required params are missing', async () => {
      const res = await get('/events/property_values?eventName=page_view')
      assert.equal(res.status, 400)
    })
  })

  describe('GET /insights/:projectId/profiles', () => {
    it('returns profiles array', async () => {
      const res = await get('/profiles')
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body))
    })

    it('includes fixture profiles', async () => {
      const res = await get('/profiles')
      const emails = (res.body as Person[]).map((person) => person.email)
      assert.ok(emails.includes('alice@example.com'), res.text)
      assert.ok(emails.includes('charlie@example.com'), res.text)
    })

    it('filters by browser via query params', async () => {
      const res = await get('/profiles?browser=Firefox')
      assert.equal(res.status, 200)
      const emails = (res.body as Person[]).map((person) => person.email)
      assert.ok(emails.includes('charlie@example.com'), res.text)
      assert.ok(!emails.includes('alice@example.com'), res.text)
    })
  })

  describe('GET /insights/:projectId/profiles/:profileId', () => {
    it('returns 404 for unknown profile', async () => {
      const res = await get('/profiles/does-not-exist')
      assert.equal(res.status, 404)
    })

    it('returns profile data for known profile', async () => {
      const res = await get(`/profiles/${PEOPLE.alice}`)
      assert.equal(res.status, 200)
      assert.ok('profile' in res.body, res.text)
      assert.equal(res.body.profile.email, 'alice@example.com')
    })
  })

  describe('GET /insights/:projectId/profiles/:profileId/sessions', () => {
    it('returns sessions for charlie', async () => {
      const res = await get(`/profiles/${PEOPLE.charlie}/sessions`)
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body))
      assert.ok(res.body.length >= 1, res.text)
    })
  })

  describe('GET /insights/:projectId/sessions', () => {
    it('returns sessions array', async () => {
      const res = await get('/sessions')
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body))
    })

    it('fixture has at least 3 sessions (alice-1, charlie-1, charlie-2)', async () => {
      const res = await get('/sessions?limit=100')
      assert.ok(res.body.length >= 3, res.text)
    })
  })

  describe('GET /insights/:projectId/overview', () => {
    it('returns analytics overview', async () => {
      const res = await get('/overview')
      assert.equal(res.status, 200)
      assert.equal(typeof res.body, 'object')
    })

    it('accepts interval param', async () => {
      const res = await get('/overview?interval=day')
      assert.equal(res.status, 200)
    })

    it('returns 400 for invalid interval', async () => {
      const res = await get('/overview?interval=invalid')
      assert.equal(res.status, 400)
    })
  })

  describe('GET /insights/:projectId/funnel', () => {
    it('returns funnel data for valid steps', async () => {
      const res = await get('/funnel?steps=session_start&steps=session_end')
      assert.equal(res.status, 200)
      assert.equal(typeof res.body, 'object')
    })

    it('returns 400 when fewer than 2 steps are provided', async () => {
      const res = await get('/funnel?steps[]=session_start')
      assert.equal(res.status, 400)
    })

    it('returns 400 when steps param is missing entirely', async () => {
      const res = await get('/funnel')
      assert.equal(res.status, 400)
    })
  })

  describe('GET /insights/:projectId/pages/top', () => {
    it('returns top pages', async () => {
      const res = await get('/pages/top')
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body))
    })
  })

  describe('GET /insights/:projectId/pages/entry_exit', () => {
    it('defaults to entry mode', async () => {
      const res = await get('/pages/entry_exit')
      assert.equal(res.status, 200)
    })

    it('accepts mode=exit', async () => {
      const res = await get('/pages/entry_exit?mode=exit')
      assert.equal(res.status, 200)
    })
  })

  describe('GET /insights/:projectId/traffic/*', () => {
    for (const [route, what] of [
      ['referrers', 'referrer'],
      ['geo', 'geo'],
      ['devices', 'device'],
    ]) {
      it(`returns ${what} breakdown`, async () => {
        const res = await get(`/traffic/${route}`)
        assert.equal(res.status, 200)
        assert.ok(Array.isArray(res.body))
      })
    }
  })
})
