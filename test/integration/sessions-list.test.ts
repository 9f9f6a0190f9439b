// `/sessions`: the window's sessions, newest first, as keyset pages; each session once, combined from its
// partial rows or read from its compacted day. Hand-checked sessions, then random data, windows, zones,
// filters and page sizes against the reference model, paging through every `nextCursor`.
import assert from 'node:assert/strict'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createProject } from '../../server/admin/control'
import { listSessions, type RawEvent } from '../reference/model'
import { request } from '../support/openapi-request'
import { insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const ORIGIN = 'https://a.example'
let n = 0
const event = (session: string, name: string, at: string, path: string, id?: string): RawEvent => ({
  id: id ?? `00000000-0000-4000-8000-${String((n += 1)).padStart(12, '0')}`,
  name,
  device_id: `device-${session}`,
  session_id: session,
  created_at: `2024-03-05T${at}Z`,
  origin: ORIGIN,
  path,
  country: 'DE',
})

const HAND: RawEvent[] = [
  event('s1', 'screen_view', '10:00:00.000', '/a'),
  event('s1', 'screen_view', '10:01:00.000', '/b'),
  event('s1', 'screen_view', '10:02:00.250', '/a'),
  event('s2', 'screen_view', '11:00:00.000', '/a'),
  event('s3', 'signup', '12:00:00.000', '/x'),
  event('s3', 'purchase', '12:01:00.000', '/y'),
  event('s4', 'screen_view', '13:00:00.000', '/b'),
  event('s4', 'screen_view', '13:05:00.000', '/c', '00000000-0000-4000-8000-0000000000a0'),
  event('s4', 'screen_view', '13:05:00.000', '/b', '00000000-0000-4000-8000-0000000000f0'),
]

const PROJECTS = [
  { id: 'rnd-berlin', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 10, sessions: 400 },
  { id: 'rnd-ny', timezone: 'America/New_York', from: new Date('2024-03-05T00:00:00Z'), days: 10, sessions: 300 },
]
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu']

function randomFilters(random: Random): string | undefined {
  const place = random.pick(CHOICES.places)
  const makers = [
    () => ({ name: 'country', operator: random.pick(['is', 'isNot']), value: [place.country] }),
    () => ({ name: 'browser', operator: 'startsWith', value: [random.pick(['Ch', 'Saf'])] }),
    () => ({ name: 'path', operator: random.pick(['contains', 'doesNotContain']), value: [random.pick(['blog', 'docs'])] }),
    () => ({ name: 'name', operator: 'is', value: [random.pick(['purchase', 'signup', 'screen_view'])] }),
    () => ({ name: 'entry_path', operator: 'is', value: [random.pick(CHOICES.paths)] }),
    () => ({ name: 'properties.plan', operator: 'is', value: [random.pick(CHOICES.plans.filter(Boolean))] }),
  ]
  const count = random.pick([0, 0, 1, 2])
  return count ? JSON.stringify(Array.from({ length: count }, () => random.pick(makers)())) : undefined
}

describe('/sessions', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  const events = new Map<string, RawEvent[]>()

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    await createProject(h.engine, { id: 'hand', timezone: 'UTC' })
    await insertRawEvents(h.engine, HAND, 'hand')
    const random = new Random(7)
    for (const project of PROJECTS) {
      await createProject(h.engine, { id: project.id, timezone: project.timezone })
      const raw = randomEvents(31 + project.sessions, project)
      events.set(project.id, raw)
      const shuffled = [...raw].sort(() => random.next() - 0.5)
      for (let batch = 0; batch < 3; batch += 1)
        await insertRawEvents(
          h.engine,
          shuffled.filter((_, index) => index % 3 === batch),
          project.id,
        )
    }
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  /** Every page of `query`, following each nextCursor; each page full but the last. */
  async function allPages(projectId: string, query: Record<string, string>, replay: string): Promise<{ status: number; rows: unknown[] }> {
    const rows: unknown[] = []
    const limit = Number(query.limit ?? 20)
    let cursor: string | undefined
    for (let pageNumber = 1; ; pageNumber += 1) {
      const search = new URLSearchParams({ ...query, detail: 'true', ...(cursor ? { cursor } : {}) })
      const res = await request(h.app).get(`/insights/${projectId}/sessions?${search}`).set(auth)
      if (res.status !== 200) return { status: res.status, rows }
      const body = res.body as { meta: { nextCursor: string | null }; data: unknown[] }
      rows.push(...body.data)
      if (body.meta.nextCursor === null) return { status: 200, rows }
      assert.equal(body.data.length, limit, `${replay}: page ${pageNumber} is full when another follows`)
      cursor = body.meta.nextCursor
    }
  }

  const hand = async (stage: string) => {
    h.now = new Date('2024-03-20T00:00:00Z')
    const res = await request(h.app).get('/insights/hand/sessions?startDate=2024-03-05&endDate=2024-03-05&detail=true').set(auth)
    assert.equal(res.status, 200, JSON.stringify(res.body))
    const body = res.body as { meta: { nextCursor: string | null }; data: Record<string, unknown>[] }
    assert.equal(body.meta.nextCursor, null)
    const pick = (row: Record<string, unknown>) => [
      row.id,
      row.startedAt,
      row.endedAt,
      row.duration,
      row.screenViews,
      row.events,
      row.bounce,
      row.entryPath,
      row.exitOrigin,
      row.exitPath,
    ]
    assert.deepEqual(
      body.data.map(pick),
      [
        ['s4', '2024-03-05T13:00:00.000+00:00', '2024-03-05T13:05:00.000+00:00', 300, 3, 3, false, '/b', ORIGIN, '/b'],
        ['s3', '2024-03-05T12:00:00.000+00:00', '2024-03-05T12:01:00.000+00:00', 60, 0, 2, true, '/x', null, null],
        ['s2', '2024-03-05T11:00:00.000+00:00', '2024-03-05T11:00:00.000+00:00', 0, 1, 1, true, '/a', ORIGIN, '/a'],
        ['s1', '2024-03-05T10:00:00.000+00:00', '2024-03-05T10:02:00.250+00:00', 120.25, 3, 3, false, '/a', ORIGIN, '/a'],
      ],
      stage,
    )
    assert.deepEqual(
      body.data,
      listSessions({ events: HAND, projectTimezone: 'UTC', query: { startDate: '2024-03-05', endDate: '2024-03-05' }, now: h.now }),
      `${stage}: the model`,
    )
    const first = await request(h.app).get('/insights/hand/sessions?startDate=2024-03-05&endDate=2024-03-05&limit=3&detail=true').set(auth)
    const second = await request(h.app)
      .get(`/insights/hand/sessions?startDate=2024-03-05&endDate=2024-03-05&limit=3&detail=true&cursor=${first.body.meta.nextCursor}`)
      .set(auth)
    assert.deepEqual(
      [...first.body.data, ...second.body.data].map((row: { id: string }) => row.id),
      ['s4', 's3', 's2', 's1'],
      stage,
    )
    assert.equal(second.body.meta.nextCursor, null)
  }

  const randomRounds = async (stage: string, seed: number) => {
    const random = new Random(seed)
    let nonEmpty = 0
    for (let round = 0; round < 30; round += 1) {
      const project = random.pick(PROJECTS)
      const span = project.days * 86_400_000
      const now = new Date(project.from.getTime() + random.int(0, span + 3 * 86_400_000))
      const query: Record<string, string> = {}
      if (random.chance(0.4)) query.range = random.pick(['today', 'yesterday', '7d', '30d', 'last24h'])
      else {
        const start = new Date(project.from.getTime() + random.int(-86_400_000, span))
        query.startDate = start.toISOString().slice(0, 10)
        query.endDate = new Date(start.getTime() + random.int(0, 6) * 86_400_000).toISOString().slice(0, 10)
      }
      if (random.chance(0.3)) query.timezone = random.pick(ZONES)
      const filters = randomFilters(random)
      if (filters) query.filters = filters
      query.limit = String(random.pick([3, 7, 50, 200]))
      const replay = `${stage}, round ${round}: now=${now.toISOString()} /insights/${project.id}/sessions?${new URLSearchParams(query)}`
      h.now = now
      const expected = listSessions({ events: events.get(project.id) as RawEvent[], projectTimezone: project.timezone, query, now })
      const answer = await allPages(project.id, query, replay)
      assert.equal(answer.status, expected === null ? 400 : 200, replay)
      if (expected === null) continue
      assert.deepEqual(answer.rows, expected, replay)
      if (expected.length) nonEmpty += 1
    }
    assert.ok(nonEmpty > 10, `most rounds list sessions: ${nonEmpty}`)
  }

  it('lists hand-checked sessions from partial rows', () => hand('partial rows'))
  it('agrees with the model on random requests, from partial rows', () => randomRounds('partial rows', 1))

  it('agrees again once the settled days are compacted', async () => {
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date('2024-03-30T00:00:00Z') })
    assert.ok(report.days > 0, JSON.stringify(report))
    await hand('compacted')
    await randomRounds('compacted', 2)
  })

  it('refuses a cursor it did not issue and a limit out of range, listing both', async () => {
    const res = await request(h.app).get('/insights/hand/sessions?cursor=bm9wZQ&limit=1001').set(auth)
    assert.equal(res.status, 400)
    assert.match(JSON.stringify(res.body), /cursor/)
    assert.match(JSON.stringify(res.body), /limit/)
  })
})
