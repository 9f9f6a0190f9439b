// A session's exit page (the registry's session fields, migrations/001_source_tables.sql): the partial rows
// written by the view and the compaction's combined rows both give the reference
// model's exit, for sessions split over insert blocks, a last page viewed twice in one millisecond, and a
// session without page views.
import assert from 'node:assert/strict'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createProject } from '../../server/admin/control'
import { buildSessions, normalize, type RawEvent } from '../reference/model'
import { insertRawEvents, startHarness, type Harness } from '../support/harness'
import { randomEvents } from '../support/random-events'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
const FROM = new Date('2024-03-01T00:00:00Z')

/** Hand-made sessions: the last page viewed twice at one instant (the larger id exits), and one without views. */
const HAND_MADE: RawEvent[] = [
  {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'screen_view',
    device_id: 'd1',
    session_id: 'twice',
    created_at: '2024-03-05T10:00:00.000Z',
    origin: 'https://a.example',
    path: '/a',
  },
  {
    id: '00000000-0000-4000-8000-0000000000ff',
    name: 'screen_view',
    device_id: 'd1',
    session_id: 'twice',
    created_at: '2024-03-05T10:05:00.000Z',
    origin: 'https://a.example',
    path: '/b',
  },
  {
    id: '00000000-0000-4000-8000-000000000002',
    name: 'screen_view',
    device_id: 'd1',
    session_id: 'twice',
    created_at: '2024-03-05T10:05:00.000Z',
    origin: 'https://a.example',
    path: '/c',
  },
  {
    id: '00000000-0000-4000-8000-000000000003',
    name: 'signup',
    device_id: 'd1',
    session_id: 'twice',
    created_at: '2024-03-05T10:06:00.000Z',
    origin: 'https://a.example',
    path: '/d',
  },
  {
    id: '00000000-0000-4000-8000-000000000004',
    name: 'signup',
    device_id: 'd2',
    session_id: 'no-views',
    created_at: '2024-03-06T10:00:00.000Z',
    origin: 'https://a.example',
    path: '/x',
  },
  {
    id: '00000000-0000-4000-8000-000000000005',
    name: 'purchase',
    device_id: 'd2',
    session_id: 'no-views',
    created_at: '2024-03-06T10:01:00.000Z',
    origin: 'https://a.example',
    path: '/y',
  },
]

type Exit = { origin: string; path: string; views: number }

/** The model's exit per session ('' and '' without page views, as the columns store none). */
function modelExits(events: RawEvent[]): Record<string, Exit> {
  const exits: Record<string, Exit> = {}
  for (const session of buildSessions(events.map(normalize)).values()) {
    exits[session.id] = { origin: session.exit?.cols.origin ?? '', path: session.exit?.cols.path ?? '', views: session.pageViews.length }
  }
  return exits
}

describe('exit pages in the sessions model', function () {
  this.timeout(180_000)
  let h: Harness
  afterEach(() => h?.close())

  const rows = async (query: string): Promise<Record<string, Exit>> => {
    const result = await h.engine.client
      .query({ query, format: 'JSONEachRow' })
      .then((rs) => rs.json<{ session_id: string; origin: string; path: string; views: string }>())
    return Object.fromEntries(result.map((row) => [row.session_id, { origin: row.origin, path: row.path, views: Number(row.views) }]))
  }
  const partialExits = () =>
    rows(`SELECT session_id, argMax(exit_origin, last_view_key) AS origin, argMax(exit_path, last_view_key) AS path, sum(screen_views) AS views
      FROM sessions WHERE project_id = 'shop' GROUP BY session_id`)
  const settledExits = () =>
    rows(`SELECT session_id, s_exit_origin AS origin, s_exit_path AS path, all_views AS views
      FROM sessions_settled WHERE project_id = 'shop' AND (day, compaction) IN (SELECT day, compaction FROM session_compactions FINAL WHERE project_id = 'shop')`)

  /** Every session's events over three inserts, so that most sessions have several partial rows. */
  async function insertSplit(events: RawEvent[]) {
    for (let part = 0; part < 3; part += 1)
      await insertRawEvents(
        h.engine,
        events.filter((_, index) => index % 3 === part),
        PROJECT.id,
      )
  }

  it("combines the partial rows' exits into the last page view's page, and the compaction keeps it", async () => {
    h = await startHarness()
    await createProject(h.engine, PROJECT)
    const events = [...randomEvents(22, { sessions: 300, from: FROM, days: 10 }), ...HAND_MADE]
    await insertSplit(events)
    const expected = modelExits(events)
    assert.deepEqual(expected.twice, { origin: 'https://a.example', path: '/b', views: 3 })
    assert.deepEqual(expected['no-views'], { origin: '', path: '', views: 0 })
    assert.deepEqual(await partialExits(), expected)

    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date('2024-04-01T00:00:00Z') })
    assert.ok(report.days >= 10, JSON.stringify(report))
    const settled = await settledExits()
    assert.equal(Object.keys(settled).length, Object.keys(expected).length, 'every session compacted')
    assert.deepEqual(settled, expected)
  })
})
