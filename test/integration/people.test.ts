// The people routes on a fixture worked by hand (test/support/people-fixture.ts): profiles listed with
// OpenPanel's filters, opened, their sessions and metrics; groups' types, list and detail; the keyset pages
// in `Link`; 404 for unknown ids and 400 listing every bad parameter. Every answer is checked against the
// published response schema by the request helper.
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import { rootHeaders, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { loadPeople, PEOPLE_NOW, PEOPLE_PROJECT } from '../support/people-fixture'

const BASE = `/insights/${PEOPLE_PROJECT.id}`
const utc = (text: string) => `${text}+00:00`

const ALICE = {
  id: 'alice',
  first_name: 'Alice',
  last_name: 'Anders',
  email: 'alice@example.com',
  avatar: 'https://example.com/alice.png',
  properties: { browser: 'Chrome', country: 'US', plan: 'pro' },
  project_id: 'people',
  is_external: true,
  created_at: utc('2024-03-01T10:00:00.000'),
  last_seen_at: utc('2024-03-08T10:02:00.000'),
  groups: ['acme'],
}
const BOB = {
  id: 'bob',
  first_name: 'Bob',
  last_name: 'Brown',
  email: 'bob@example.com',
  avatar: '',
  properties: { browser: 'Safari', country: 'GB', plan: 'free' },
  project_id: 'people',
  is_external: true,
  created_at: utc('2024-03-02T09:00:00.000'),
  last_seen_at: utc('2024-03-05T00:00:00.000'),
  groups: ['acme', 'globex'],
}
const CHARLIE = {
  id: 'charlie',
  first_name: 'Charlie',
  last_name: 'Chen',
  email: 'charlie@example.com',
  avatar: '',
  properties: { browser: 'Firefox', country: 'DE' },
  project_id: 'people',
  is_external: true,
  created_at: utc('2024-03-03T08:00:00.000'),
  last_seen_at: utc('2024-03-09T12:00:00.000'),
  groups: [],
}

/** A session of Charlie's as OpenPanel's session row, with what differs from one to the next. */
const charlieSession = (fields: Record<string, unknown>) => ({
  profile_id: 'charlie',
  entry_origin: 'https://shop.example',
  exit_origin: 'https://shop.example',
  referrer: '',
  referrer_name: '',
  referrer_type: '',
  os: '',
  os_version: '',
  browser: 'Firefox',
  browser_version: '',
  device: '',
  brand: '',
  model: '',
  country: 'DE',
  region: '',
  city: '',
  project_id: 'people',
  device_id: 'dev-c',
  utm_medium: '',
  utm_source: '',
  utm_campaign: '',
  utm_content: '',
  utm_term: '',
  revenue: 0,
  ...fields,
})
const C3 = charlieSession({
  id: 'c3',
  event_count: 2,
  screen_view_count: 2,
  entry_path: '/a',
  exit_path: '/b',
  created_at: utc('2024-03-09T12:30:00.000'),
  ended_at: utc('2024-03-09T12:31:30.000'),
  is_bounce: false,
  duration: 90_000,
})
const C2 = charlieSession({
  id: 'c2',
  event_count: 2,
  screen_view_count: 1,
  entry_path: '/home',
  exit_path: '/home',
  created_at: utc('2024-03-09T12:00:00.000'),
  ended_at: utc('2024-03-09T12:00:30.000'),
  is_bounce: true,
  duration: 30_000,
})
const C1 = charlieSession({
  id: 'c1',
  event_count: 1,
  screen_view_count: 1,
  entry_path: '/shop',
  exit_path: '/shop',
  created_at: utc('2024-03-04T08:00:00.000'),
  ended_at: utc('2024-03-04T08:00:00.000'),
  is_bounce: true,
  duration: 0,
})

const ACME = {
  id: 'acme',
  projectId: 'people',
  type: 'company',
  name: 'Acme Corp',
  properties: { size: '50' },
  createdAt: utc('2024-03-01T00:00:00.000'),
  updatedAt: utc('1970-01-01T00:00:00.002'),
}
const GLOBEX = {
  id: 'globex',
  projectId: 'people',
  type: 'company',
  name: 'Globex',
  properties: {},
  createdAt: utc('2024-03-02T00:00:00.000'),
  updatedAt: utc('1970-01-01T00:00:00.001'),
}
/** A profile as a group's member: OpenPanel's camelCase profile. */
const member = (profile: typeof ALICE | typeof BOB) => ({
  id: profile.id,
  email: profile.email,
  avatar: profile.avatar,
  firstName: profile.first_name,
  lastName: profile.last_name,
  createdAt: profile.created_at,
  lastSeenAt: profile.last_seen_at,
  isExternal: true,
  projectId: 'people',
  groups: profile.groups,
  properties: profile.properties,
})

describe('people: profiles and groups', function () {
  this.timeout(120_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: PEOPLE_NOW })
    await createProject(h.engine, PEOPLE_PROJECT)
    await loadPeople(h.engine)
    auth = await rootHeaders(h.engine)
  })
  after(() => h?.close())

  const get = (url: string) => request(h.app).get(`${BASE}${url}`).set(auth)
  const ids = (body: { id: string }[]) => body.map((row) => row.id)
  /** The `cursor` of a response's `Link: <...>; rel="next"`, or undefined without one. */
  const nextCursor = (res: { headers: Record<string, string> }) => {
    const link = res.headers.link
    if (!link) return undefined
    return new URL(/^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? assert.fail(link), 'http://x').searchParams.get('cursor') ?? undefined
  }

  describe('GET /profiles', () => {
    it('lists every profile as its newest version, newest created first', async () => {
      const res = await get('/profiles').expect(200)
      assert.deepEqual(res.body, [CHARLIE, BOB, ALICE])
      assert.equal(res.headers.link, undefined)
    })

    it('filters by a profile property named as a parameter (?browser=Firefox), as OpenPanel does', async () => {
      assert.deepEqual((await get('/profiles?browser=Firefox').expect(200)).body, [CHARLIE])
      assert.deepEqual(ids((await get('/profiles?country=US').expect(200)).body), ['alice'])
    })

    it('searches names by every word and emails by a part, on the newest version only', async () => {
      assert.deepEqual(ids((await get('/profiles?name=ALI').expect(200)).body), ['alice'])
      assert.deepEqual(ids((await get('/profiles?name=bob%20brown').expect(200)).body), ['bob'])
      assert.deepEqual(ids((await get('/profiles?name=bob%20chen').expect(200)).body), [])
      assert.deepEqual(ids((await get('/profiles?email=EXAMPLE.COM').expect(200)).body), ['charlie', 'bob', 'alice'])
      // Alice's older version had this email: it is not her profile any more.
      assert.deepEqual(ids((await get('/profiles?email=old.example').expect(200)).body), [])
    })

    it('keeps profiles by their events and sessions: performedEvent, minSessions, inactiveDays', async () => {
      assert.deepEqual(ids((await get('/profiles?performedEvent=purchase').expect(200)).body), ['alice'])
      assert.deepEqual(ids((await get('/profiles?minSessions=3').expect(200)).body), ['charlie'])
      assert.deepEqual(ids((await get('/profiles?minSessions=4').expect(200)).body), [])
      // Now is 2024-03-10: Charlie has events on the 9th, Alice on the 8th, Bob none.
      assert.deepEqual(ids((await get('/profiles?inactiveDays=1').expect(200)).body), ['bob', 'alice'])
      assert.deepEqual(ids((await get('/profiles?inactiveDays=2').expect(200)).body), ['bob'])
    })

    it('takes filters on properties and columns, values of positive operators ORed', async () => {
      const filters = (list: object[]) => `/profiles?filters=${encodeURIComponent(JSON.stringify(list))}`
      assert.deepEqual(ids((await get(filters([{ name: 'properties.plan', operator: 'is', value: ['pro', 'free'] }])).expect(200)).body), [
        'bob',
        'alice',
      ])
      assert.deepEqual(ids((await get(filters([{ name: 'properties.plan', operator: 'isNull' }])).expect(200)).body), ['charlie'])
      assert.deepEqual(
        ids(
          (
            await get(
              filters([
                { name: 'first_name', operator: 'startsWith', value: ['b', 'c'] },
                { name: 'email', operator: 'doesNotContain', value: ['CHARLIE'] },
              ]),
            ).expect(200)
          ).body,
        ),
        ['bob'],
      )
    })

    it('pages by a keyset in the Link header, in either order, ties by id', async () => {
      const first = await get('/profiles?sortOrder=asc&limit=2').expect(200)
      assert.deepEqual(ids(first.body), ['alice', 'bob'])
      const cursor = nextCursor(first) ?? assert.fail('a next page')
      const second = await get(`/profiles?sortOrder=asc&limit=2&cursor=${cursor}`).expect(200)
      assert.deepEqual(ids(second.body), ['charlie'])
      assert.equal(second.headers.link, undefined)
      const newest = await get('/profiles?limit=1').expect(200)
      assert.deepEqual(ids(newest.body), ['charlie'])
      assert.deepEqual(ids((await get(`/profiles?limit=1&cursor=${nextCursor(newest)}`).expect(200)).body), ['bob'])
    })

    it('answers 400 listing every bad parameter', async () => {
      const res = await get('/profiles?limit=101&sortOrder=up&minSessions=0&cursor=nope&colour=red').expect(400)
      assert.deepEqual(res.body.details.issues.map((issue: { path: string[] }) => issue.path.join('.')).sort(), [
        'colour',
        'cursor',
        'limit',
        'minSessions',
        'sortOrder',
      ])
      const bad = encodeURIComponent(
        JSON.stringify([
          { name: 'nope', operator: 'is', value: ['x'] },
          { name: 'id', operator: 'like' },
        ]),
      )
      const filters = await get(`/profiles?filters=${bad}`).expect(400)
      assert.deepEqual(filters.body.details.issues.map((issue: { path: (string | number)[] }) => issue.path.join('.')).sort(), [
        'filters.0.name',
        'filters.1.operator',
      ])
      await get('/profiles?filters=%5B').expect(400)
    })
  })

  describe('GET /profiles/:profileId', () => {
    it('answers the profile and its newest events, newest first', async () => {
      const res = await get('/profiles/alice').expect(200)
      assert.deepEqual(res.body.profile, ALICE)
      assert.deepEqual(
        res.body.recentEvents.map((event: { name: string; path: string; created_at: string }) => [
          event.name,
          event.path,
          event.created_at,
        ]),
        [
          ['purchase', '/pricing', utc('2024-03-08T10:02:00.000')],
          ['screen_view', '/pricing', utc('2024-03-08T10:01:00.000')],
          ['screen_view', '/home', utc('2024-03-08T10:00:00.000')],
        ],
      )
      assert.equal(res.body.recentEvents[0].revenue, 1500)
      const two = await get('/profiles/alice?eventLimit=2').expect(200)
      assert.equal(two.body.recentEvents.length, 2)
      assert.deepEqual((await get('/profiles/bob').expect(200)).body, { profile: BOB, recentEvents: [] })
    })

    it('answers 404 with the error body for an unknown profile, 400 for a bad eventLimit', async () => {
      const res = await get('/profiles/does-not-exist').expect(404)
      assert.equal(res.body.error, 'Not Found')
      assert.match(res.body.message, /does-not-exist/)
      await get('/profiles/alice?eventLimit=101').expect(400)
    })
  })

  describe('GET /profiles/:profileId/sessions', () => {
    it("answers the profile's sessions newest first, a session split over two inserts once", async () => {
      assert.deepEqual((await get('/profiles/charlie/sessions').expect(200)).body, [C3, C2, C1])
      assert.deepEqual((await get('/profiles/bob/sessions').expect(200)).body, [])
    })

    it('pages by a keyset in the Link header', async () => {
      const first = await get('/profiles/charlie/sessions?limit=2').expect(200)
      assert.deepEqual(ids(first.body), ['c3', 'c2'])
      const second = await get(`/profiles/charlie/sessions?limit=2&cursor=${nextCursor(first)}`).expect(200)
      assert.deepEqual(second.body, [C1])
      assert.equal(second.headers.link, undefined)
      await get('/profiles/charlie/sessions?limit=0&cursor=x').expect(400)
    })
  })

  describe('GET /profiles/:profileId/metrics', () => {
    it("answers Charlie's figures as worked by hand", async () => {
      assert.deepEqual((await get('/profiles/charlie/metrics').expect(200)).body, {
        profileId: 'charlie',
        firstSeen: utc('2024-03-03T08:00:00.000'),
        lastSeen: utc('2024-03-09T12:00:00.000'),
        sessions: 3,
        screenViews: 4,
        totalEvents: 5,
        conversionEvents: 1,
        uniqueDaysActive: 2,
        // Durations over 0: 30 s and 90 s.
        avgSessionDurationMin: 1,
        // Inclusive: 30 + 0.9 x 60 = 84 s.
        p90SessionDurationMin: 1.4,
        avgEventsPerSession: 1.67,
        // From 03-04 08:00 to 03-09 12:30: 448,200 s over 2 gaps.
        avgTimeBetweenSessionsSec: 224_100,
        bounceRate: 66.67,
        revenue: 0,
      })
    })

    it("answers Alice's, and a visitor without a profile with nulls", async () => {
      const alice = (await get('/profiles/alice/metrics').expect(200)).body
      assert.deepEqual(
        [alice.sessions, alice.screenViews, alice.totalEvents, alice.conversionEvents, alice.avgSessionDurationMin, alice.revenue],
        [1, 2, 3, 1, 2, 1500],
      )
      assert.equal(alice.avgTimeBetweenSessionsSec, 0)
      assert.deepEqual((await get('/profiles/ghost/metrics').expect(200)).body, {
        profileId: 'ghost',
        firstSeen: null,
        lastSeen: null,
        sessions: 0,
        screenViews: 0,
        totalEvents: 0,
        conversionEvents: 0,
        uniqueDaysActive: 0,
        avgSessionDurationMin: 0,
        p90SessionDurationMin: 0,
        avgEventsPerSession: null,
        avgTimeBetweenSessionsSec: 0,
        bounceRate: 0,
        revenue: 0,
      })
    })
  })

  describe('groups', () => {
    it('lists the types of the groups there are (a deleted group left out)', async () => {
      assert.deepEqual((await get('/groups/types').expect(200)).body, { types: ['company'] })
    })

    it('lists groups as their newest version, newest created first, by type and search, paged in Link', async () => {
      assert.deepEqual((await get('/groups').expect(200)).body, [GLOBEX, ACME])
      assert.deepEqual(ids((await get('/groups?type=team').expect(200)).body), [])
      assert.deepEqual(ids((await get('/groups?search=CORP').expect(200)).body), ['acme'])
      // The name of acme's older version matches nothing any more.
      assert.deepEqual(ids((await get('/groups?search=inc').expect(200)).body), [])
      const first = await get('/groups?limit=1').expect(200)
      assert.deepEqual(ids(first.body), ['globex'])
      assert.deepEqual((await get(`/groups?limit=1&cursor=${nextCursor(first)}`).expect(200)).body, [ACME])
      await get('/groups?limit=500').expect(400)
    })

    it('opens a group with its member count and newest members', async () => {
      assert.deepEqual((await get('/groups/acme').expect(200)).body, {
        group: ACME,
        member_count: 2,
        members: [member(BOB), member(ALICE)],
      })
      const one = (await get('/groups/acme?memberLimit=1').expect(200)).body
      assert.deepEqual([one.member_count, one.members.map((row: { id: string }) => row.id)], [2, ['bob']])
      assert.deepEqual(
        (await get('/groups/globex').expect(200)).body.members.map((row: { id: string }) => row.id),
        ['bob'],
      )
    })

    it('answers 404 for an unknown or deleted group', async () => {
      await get('/groups/nope').expect(404)
      await get('/groups/initech').expect(404)
      await get('/groups/acme?memberLimit=51').expect(400)
    })
  })
})
