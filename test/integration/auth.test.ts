import assert from 'node:assert/strict'
import { request } from '../support/openapi-request'
import { createApiClient, createProject, revokeApiClient } from '../../server/admin/control'
import { startHarness, type Harness } from '../support/harness'

interface Credentials {
  id: string
  secret: string
}

const headerAuth = (c: Credentials) => ({ 'openpanel-client-id': c.id, 'openpanel-client-secret': c.secret })
const basicAuth = (c: Credentials) => ({ Authorization: `Basic ${Buffer.from(`${c.id}:${c.secret}`).toString('base64')}` })

describe('authentication and authorization', () => {
  let h: Harness
  let reader: Credentials
  let otherReader: Credentials
  let writer: Credentials
  let root: Credentials
  const wrong: [string, Record<string, string>][] = []

  before(async () => {
    h = await startHarness({
      env: {
        QUARRY_AUTH_CACHE_MS: '200',
        QUARRY_TRUST_PROXY: 'loopback',
        QUARRY_RATE_WINDOW_MS: '600000',
        QUARRY_RATE_LIMIT: '20',
        QUARRY_AUTH_CHECKS_PER_SECOND: '1000',
      },
    })
    await createProject(h.engine, { id: 'shop', timezone: 'Europe/Berlin' })
    await createProject(h.engine, { id: 'blog' })
    reader = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    otherReader = await createApiClient(h.engine, { type: 'read', projectId: 'blog' })
    writer = await createApiClient(h.engine, { type: 'write', projectId: 'shop' })
    root = await createApiClient(h.engine, { type: 'root' })
    wrong.push(
      ['a wrong secret', headerAuth({ id: reader.id, secret: 'sec_wrong' })],
      ['a wrong secret over Basic', basicAuth({ id: reader.id, secret: 'nope' })],
      ['a malformed client id', headerAuth({ id: 'not-a-uuid', secret: reader.secret })],
      ['an unknown client id', headerAuth({ id: '00000000-0000-4000-8000-000000000000', secret: reader.secret })],
      ['an id without a secret', { 'openpanel-client-id': reader.id }],
      ['a Basic header without a colon', { Authorization: `Basic ${Buffer.from(reader.id).toString('base64')}` }],
      ['a non-Basic Authorization scheme', { Authorization: `Bearer ${reader.secret}` }],
    )
  })
  after(() => h.close())

  const live = (project: string) => `/insights/${project}/live`

  it('answers a read client on its own project, with either header style', async () => {
    for (const headers of [headerAuth(reader), basicAuth(reader)]) {
      const res = await request(h.app).get(live('shop')).set(headers).expect(200)
      assert.deepEqual(res.body, { visitors: 0 })
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/)
    }
  })

  it('401s without credentials, with the error body and request id', async () => {
    const res = await request(h.app).get(live('shop')).expect(401)
    assert.equal(res.body.error, 'Unauthorized')
    assert.equal(res.body.requestId, res.headers['x-request-id'])
  })

  it('401s wrong, malformed, unknown and incomplete credentials', async () => {
    for (const [what, headers] of wrong) {
      const res = await request(h.app).get(live('shop')).set(headers)
      assert.equal(res.status, 401, what)
      assert.equal(res.body.error, 'Unauthorized', what)
    }
  })

  it('403s a write client on every project, even its own', async () => {
    for (const project of ['shop', 'blog', 'nope']) {
      const res = await request(h.app).get(live(project)).set(headerAuth(writer))
      assert.equal(res.status, 403, project)
    }
  })

  it('403s a read client asking for another project, existing or not', async () => {
    await request(h.app).get(live('blog')).set(headerAuth(reader)).expect(403)
    await request(h.app).get(live('nope')).set(headerAuth(reader)).expect(403)
    await request(h.app).get(live('blog')).set(basicAuth(otherReader)).expect(200)
  })

  it('lets a root client read any project and 404s an unknown one', async () => {
    await request(h.app).get(live('shop')).set(headerAuth(root)).expect(200)
    await request(h.app).get(live('blog')).set(basicAuth(root)).expect(200)
    const res = await request(h.app).get(live('nope')).set(headerAuth(root)).expect(404)
    assert.equal(res.body.error, 'Not Found')
  })

  it('authenticates before validating parameters', async () => {
    await request(h.app)
      .get(`${live('shop')}?bogus=1`)
      .expect(401)
    await request(h.app)
      .get(`${live('shop')}?bogus=1`)
      .set(headerAuth(writer))
      .expect(403)
    await request(h.app)
      .get(`${live('blog')}?bogus=1`)
      .set(headerAuth(reader))
      .expect(403)
    await request(h.app)
      .get(`${live('nope')}?bogus=1`)
      .set(headerAuth(root))
      .expect(404)
    const res = await request(h.app)
      .get(`${live('shop')}?bogus=1&other=2`)
      .set(headerAuth(reader))
      .expect(400)
    assert.deepEqual(
      res.body.details.issues.map((issue: { path: string[] }) => issue.path),
      [['bogus'], ['other']],
    )
  })

  it('refuses a revoked client once the auth cache expires', async () => {
    const doomed = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    // A new client, like a revoked one, is seen once the gateway's copy of the clients is that old.
    await new Promise((resolve) => setTimeout(resolve, 250))
    await request(h.app).get(live('shop')).set(headerAuth(doomed)).expect(200)
    await revokeApiClient(h.engine, doomed.id)
    await new Promise((resolve) => setTimeout(resolve, 250))
    await request(h.app).get(live('shop')).set(headerAuth(doomed)).expect(401)
  })

  it('serves /health, /ready and /openapi.json without credentials', async () => {
    await request(h.app).get('/health').expect(200, { status: 'ok' })
    await request(h.app).get('/ready').expect(200, { status: 'ready' })
    const res = await request(h.app).get('/openapi.json').expect(200)
    assert.ok(res.body.paths['/insights/{projectId}/live'])
  })

  it('limits failed attempts per forwarded address and client id behind a trusted proxy', async () => {
    const guess = (n: number) => ({ ...headerAuth(reader), 'openpanel-client-secret': `guess-${n}` })
    const from = (address: string) => request(h.app).get(live('shop')).set('X-Forwarded-For', address)
    for (let n = 0; n < 20; n += 1) await from('203.0.113.7').set(guess(n)).expect(401)
    const limited = await from('203.0.113.7').set(guess(20)).expect(429)
    assert.ok(Number(limited.headers['retry-after']) >= 1)
    await from('203.0.113.8').set(guess(20)).expect(401)
    await from('203.0.113.7').set(headerAuth(otherReader)).expect(403)
  })

  it("lets a client's valid credentials through from an address that failed its id past the limit", async () => {
    const victim = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    await new Promise((resolve) => setTimeout(resolve, 250))
    const from = () => request(h.app).get(live('shop')).set('X-Forwarded-For', '203.0.113.9')
    for (let n = 0; n < 20; n += 1)
      await from()
        .set({ ...headerAuth(victim), 'openpanel-client-secret': `guess-${n}` })
        .expect(401)
    await from()
      .set({ ...headerAuth(victim), 'openpanel-client-secret': 'another-guess' })
      .expect(429)
    // Never verified before, so not cached: its check takes the suspect tier's turn, and passes.
    await from().set(headerAuth(victim)).expect(200)
    await from()
      .set({ ...headerAuth(victim), 'openpanel-client-secret': 'guess-0' })
      .expect(429)
    await from().set(headerAuth(victim)).expect(200)
  })

  it('counts a wrong secret against its pair once, however often it is repeated', async () => {
    const target = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    await new Promise((resolve) => setTimeout(resolve, 250))
    const from = () => request(h.app).get(live('shop')).set('X-Forwarded-For', '203.0.113.10')
    for (let n = 0; n < 50; n += 1)
      await from()
        .set({ ...headerAuth(target), 'openpanel-client-secret': 'the-same-guess' })
        .expect(401)
    for (let n = 0; n < 19; n += 1)
      await from()
        .set({ ...headerAuth(target), 'openpanel-client-secret': `guess-${n}` })
        .expect(401)
    const limited = await from()
      .set({ ...headerAuth(target), 'openpanel-client-secret': 'the-same-guess' })
      .expect(429)
    assert.ok(Number(limited.headers['retry-after']) >= 1, 'past the limit, a remembered wrong secret answers 429 too')
    await from().set(headerAuth(target)).expect(200)
  })

  it('answers unknown paths with a JSON 404', async () => {
    const res = await request(h.app).get('/nowhere').expect(404)
    assert.equal(res.body.error, 'Not Found')
  })
})
