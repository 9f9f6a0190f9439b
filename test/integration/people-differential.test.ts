// The people routes against the reference model (test/reference/people.ts) on random data: profiles of
// several versions, groups renamed and deleted, and events whose sessions are split over two inserts. Every
// list is read to its end through the `Link` cursors, so the pages together must be the model's whole answer.
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import type { RawEvent } from '../reference/model'
import {
  answerGroup,
  answerGroups,
  answerGroupTypes,
  answerProfileMetrics,
  answerProfiles,
  answerProfileSessions,
  type GroupVersion,
  newestProfiles,
  profileAnswer,
  type ProfilesQuestion,
  type ProfileVersion,
} from '../reference/people'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { Random } from '../support/random'

const PROJECT = { id: 'crowd', timezone: 'UTC' }
const NOW = new Date('2024-05-01T00:00:00.000Z')
const DAY = 86_400_000
const SEED = 4242

const at = (random: Random, days: number) => new Date(NOW.getTime() - random.int(1, days * DAY)).toISOString()

function randomPeople(random: Random) {
  const groupIds = Array.from({ length: 8 }, (_, i) => `g${i}`)
  const profiles: ProfileVersion[] = []
  for (let i = 0; i < 40; i++) {
    const created = at(random, 60)
    for (let v = random.int(1, 3); v > 0; v--) {
      const properties: Record<string, string> = {}
      if (random.chance(0.8)) properties.browser = random.pick(['Chrome', 'Firefox', 'Safari'])
      if (random.chance(0.7)) properties.country = random.pick(['DE', 'US', 'FR'])
      if (random.chance(0.5)) properties.plan = random.pick(['free', 'pro'])
      profiles.push({
        id: `p${String(i).padStart(2, '0')}`,
        first_name: random.pick(['Ada', 'Bo', 'Cy', 'Di']),
        last_name: random.pick(['Lovelace', 'Berg', 'Chan']),
        email: `${random.pick(['ada', 'bo', 'cy'])}${i}@${random.pick(['example.com', 'mail.test'])}`,
        properties,
        groups: groupIds.filter(() => random.chance(0.2)),
        created_at: random.chance(0.2) ? at(random, 60) : created,
        // Some versions tie on last_seen_at: the other columns decide.
        last_seen_at: random.chance(0.2) ? created : at(random, 30),
      })
    }
  }
  const groups: GroupVersion[] = []
  for (const id of groupIds) {
    const created = at(random, 60)
    for (let v = random.int(1, 3); v > 0; v--)
      groups.push({
        id,
        type: random.pick(['company', 'team']),
        name: `${random.pick(['Acme', 'Globex', 'Initech'])} ${id}`,
        properties: random.chance(0.5) ? { size: String(random.int(1, 9)) } : {},
        created_at: created,
        version: random.int(1, 3),
        deleted: random.chance(0.15) ? 1 : 0,
      })
  }
  const events: RawEvent[] = []
  for (let s = 0; s < 150; s++) {
    const profile = random.chance(0.8) ? `p${String(random.int(0, 44)).padStart(2, '0')}` : ''
    const device = `d${random.int(0, 60)}`
    let time = NOW.getTime() - random.int(1, 20 * DAY)
    for (let e = random.int(1, 5); e > 0; e--) {
      events.push({
        id: random.uuid(),
        name: random.pick(['screen_view', 'screen_view', 'signup', 'purchase']),
        device_id: device,
        profile_id: profile,
        session_id: `s${s}`,
        created_at: new Date(time).toISOString(),
        path: random.pick(['/', '/a', '/b']),
        origin: 'https://x.test',
        browser: random.pick(['Chrome', 'Firefox']),
        country: random.pick(['DE', 'US']),
        revenue: random.chance(0.2) ? random.int(1, 5000) : 0,
      })
      time += random.pick([0, 1000, 45_000, 600_000])
    }
  }
  return { profiles, groups, events }
}

function randomQuestion(random: Random): ProfilesQuestion {
  const question: ProfilesQuestion = { sortOrder: random.pick(['asc', 'desc']) }
  if (random.chance(0.3)) question.name = random.pick(['ada', 'bo berg', 'CHAN', 'p1'])
  if (random.chance(0.3)) question.email = random.pick(['example', 'MAIL', '1@'])
  if (random.chance(0.3)) question.browser = random.pick(['Chrome', 'Firefox'])
  if (random.chance(0.2)) question.country = random.pick(['DE', 'US'])
  if (random.chance(0.2)) question.inactiveDays = random.int(1, 15)
  if (random.chance(0.2)) question.minSessions = random.int(1, 4)
  if (random.chance(0.2)) question.performedEvent = random.pick(['signup', 'purchase'])
  if (random.chance(0.4))
    question.filters = [
      {
        name: random.pick(['properties.plan', 'properties.country', 'email', 'first_name']),
        operator: random.pick(['is', 'isNot', 'contains', 'doesNotContain', 'startsWith', 'endsWith', 'isNull', 'isNotNull']),
        value: [random.pick(['pro', 'DE', 'ada', 'A', 'test'])],
      },
    ]
  return question
}

describe('people routes against the reference model, on random data', function () {
  this.timeout(60_000)
  let h: Harness
  let auth: Record<string, string>
  const random = new Random(SEED)
  const data = randomPeople(random)

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: NOW })
    await createProject(h.engine, PROJECT)
    const project_id = PROJECT.id
    await h.engine.client.insert({ table: 'profiles', values: data.profiles.map((row) => ({ ...row, project_id })), format: 'JSONEachRow' })
    await h.engine.client.insert({ table: 'groups', values: data.groups.map((row) => ({ ...row, project_id })), format: 'JSONEachRow' })
    // Two inserts, events of a session in either: sessions of two partial rows.
    await insertRawEvents(
      h.engine,
      data.events.filter((_, i) => i % 3 === 0),
      project_id,
    )
    await insertRawEvents(
      h.engine,
      data.events.filter((_, i) => i % 3 !== 0),
      project_id,
    )
    auth = await rootHeaders(h.engine)
  })
  after(() => h?.close())

  /** Every page of a list, following the Link cursors. */
  async function readAll(path: string, query: Record<string, string>): Promise<unknown[]> {
    const rows: unknown[] = []
    let cursor: string | undefined
    for (let pages = 0; pages < 100; pages++) {
      const search = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) })
      const res = await request(h.app).get(`/insights/${PROJECT.id}${path}?${search}`).set(auth).expect(200)
      rows.push(...res.body)
      const link = res.headers.link as string | undefined
      if (!link) return rows
      cursor = new URL(/^<([^>]+)>/.exec(link)?.[1] ?? '', 'http://x').searchParams.get('cursor') ?? undefined
    }
    return assert.fail(`${path}: more than 100 pages`)
  }

  it('lists profiles as the model does, for random filters, orders and page sizes', async () => {
    for (let i = 0; i < 25; i++) {
      const question = randomQuestion(random)
      const { filters, ...plain } = question
      const query = Object.fromEntries(
        Object.entries({ ...plain, ...(filters ? { filters: JSON.stringify(filters) } : {}), limit: random.int(1, 12) }).map(
          ([key, value]) => [key, String(value)],
        ),
      )
      const expected = answerProfiles({ ...data, projectId: PROJECT.id, now: NOW }, question)
      assert.deepEqual(await readAll('/profiles', query), expected, JSON.stringify(query))
    }
  })

  it('opens profiles, their sessions page by page and their metrics as the model does', async () => {
    const newest = newestProfiles(data.profiles)
    for (const id of ['p00', 'p03', 'p07', 'p12', 'p19', 'p25', 'p33', 'p39', 'p42', 'd5']) {
      const opened = await request(h.app).get(`/insights/${PROJECT.id}/profiles/${id}`).set(auth)
      const profile = newest.get(id)
      if (!profile) assert.equal(opened.status, 404, id)
      else {
        assert.deepEqual(opened.body.profile, profileAnswer(profile, PROJECT.id), id)
        const recent = data.events
          .filter((event) => event.profile_id === id)
          .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0))
          .slice(0, 20)
          .map((event) => event.id)
        assert.deepEqual(
          opened.body.recentEvents.map((event: { id: string }) => event.id),
          recent,
          id,
        )
      }
      const sessions = await readAll(`/profiles/${id}/sessions`, { limit: '2' })
      assert.deepEqual(sessions, answerProfileSessions({ events: data.events, projectId: PROJECT.id }, id === 'd5' ? 'd5' : id), id)
      const metrics = await request(h.app).get(`/insights/${PROJECT.id}/profiles/${id}/metrics`).set(auth).expect(200)
      assert.deepEqual(metrics.body, answerProfileMetrics(data, id), id)
    }
  })

  it('answers groups, their types and each group with its members as the model does', async () => {
    const types = await request(h.app).get(`/insights/${PROJECT.id}/groups/types`).set(auth).expect(200)
    assert.deepEqual(types.body, answerGroupTypes(data.groups))
    const questions: Record<string, string>[] = [{}, { type: 'company' }, { type: 'team', search: 'acme' }, { search: 'G1' }]
    for (const question of questions)
      assert.deepEqual(
        await readAll('/groups', { ...question, limit: '3' }),
        answerGroups(data.groups, PROJECT.id, question),
        JSON.stringify(question),
      )
    for (const id of ['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7', 'g9']) {
      const expected = answerGroup({ ...data, projectId: PROJECT.id }, id, 4)
      const res = await request(h.app).get(`/insights/${PROJECT.id}/groups/${id}?memberLimit=4`).set(auth)
      if (!expected) assert.equal(res.status, 404, id)
      else assert.deepEqual(res.body, expected, id)
    }
  })
})
