// The seed generator: deterministic (same parameters, same rows), exact in size, and realistic enough
// for the demo (sessions, referrers, identified visitors with profiles, live visitors near `end`).
import assert from 'node:assert/strict'
import { createProject } from '../../server/admin/control'
import { SEED_BLOCK_ROWS, seedProject } from '../../server/admin/seed'
import { startHarness, type Harness } from '../support/harness'

const END = new Date('2024-06-01T12:00:00Z')

describe('seed', function () {
  this.timeout(300_000)
  let h: Harness
  before(async () => {
    h = await startHarness()
    for (const id of ['a', 'b', 'c', 'd', 'e']) await createProject(h.engine, { id })
    await seedProject(h.engine, { projectId: 'a', events: 50_000, days: 30, seed: 42, end: END })
    await seedProject(h.engine, { projectId: 'b', events: 50_000, days: 30, seed: 42, end: END })
    await seedProject(h.engine, { projectId: 'c', events: 50_000, days: 30, seed: 43, end: END })
  })
  after(() => h.close())

  const one = async <T>(query: string): Promise<T> =>
    (await h.engine.client.query({ query, format: 'JSONEachRow' }).then((rs) => rs.json<T>()))[0]

  async function fingerprint(project: string) {
    return one<{ n: number; events: string; sessions: string; profiles: string }>(`
      SELECT
        (SELECT count() FROM events WHERE project_id = '${project}') AS n,
        (SELECT toString(groupBitXor(cityHash64(id, name, device_id, profile_id, session_id, created_at, path, referrer, utm_source, country, city, browser, revenue, properties))) FROM events WHERE project_id = '${project}') AS events,
        (SELECT toString(groupBitXor(cityHash64(session_id, started_at, ended_at, screen_views, entry_path))) FROM sessions WHERE project_id = '${project}') AS sessions,
        (SELECT toString(groupBitXor(cityHash64(id, email, last_seen_at))) FROM profiles WHERE project_id = '${project}') AS profiles`)
  }

  it('writes exactly the requested number of events', async () => {
    assert.equal((await fingerprint('a')).n, 50_000)
  })

  it('gives the same rows for the same parameters, and others for another seed', async () => {
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map(fingerprint))
    assert.deepEqual(a, b)
    assert.notEqual(a.events, c.events)
    assert.notEqual(a.profiles, c.profiles)
  })

  it('gives the same rows and sessions however the rows are split into batches, and reports each batch', async () => {
    const seen: number[] = []
    await seedProject(h.engine, {
      projectId: 'd',
      events: 150_000,
      days: 30,
      seed: 42,
      end: END,
      batchRows: SEED_BLOCK_ROWS,
      onProgress: (rows) => seen.push(rows),
    })
    await seedProject(h.engine, { projectId: 'e', events: 150_000, days: 30, seed: 42, end: END, batchRows: 4 * SEED_BLOCK_ROWS })
    assert.deepEqual(seen, [0, 65_536, 131_072, 150_000])
    const [d, e] = await Promise.all(['d', 'e'].map(fingerprint))
    assert.equal(d.n, 150_000)
    assert.deepEqual(d, e)
    const split = await one<{ n: number }>("SELECT count() - uniqExact(session_id) AS n FROM sessions WHERE project_id = 'd'")
    assert.equal(Number(split.n), 0, 'no session is split across batches')
  })

  it('looks like real traffic', async () => {
    const stats = await one<Record<string, number>>(`
      SELECT
        uniqExact(session_id) AS sessions,
        uniqExact(device_id) AS visitors,
        countIf(name = 'screen_view') / count() AS view_share,
        uniqExactIf(session_id, referrer != '') / uniqExact(session_id) AS referred_share,
        uniqExactIf(referrer_type, referrer_type != '') AS referrer_types,
        uniqExactIf(profile_id, profile_id != device_id) / uniqExact(device_id) AS identified_share,
        countIf(revenue > 0) AS revenue_events,
        uniqExact(path) AS paths,
        uniqExact(country) AS countries,
        min(created_at) >= toDateTime64('2024-05-02 12:00:00', 3, 'UTC') AS within_window,
        max(created_at) < toDateTime64('2024-06-01 12:00:00', 3, 'UTC') AS before_end,
        countIf(created_at >= toDateTime64('2024-06-01 11:55:00', 3, 'UTC')) AS last_five_minutes
      FROM events WHERE project_id = 'a'`)
    assert.ok(stats.visitors < stats.sessions, 'visitors come back')
    assert.ok(stats.sessions < 50_000 / 1.5, 'sessions have several events')
    assert.ok(stats.view_share > 0.5 && stats.view_share < 0.95, `screen_view share ${stats.view_share}`)
    assert.ok(stats.referred_share > 0.2 && stats.referred_share < 0.9, `referred share ${stats.referred_share}`)
    assert.equal(stats.referrer_types, 3)
    assert.ok(stats.identified_share > 0.05 && stats.identified_share < 0.4, `identified share ${stats.identified_share}`)
    assert.ok(stats.revenue_events > 0)
    assert.ok(stats.paths > 50 && stats.countries >= 5)
    assert.equal(stats.within_window, 1)
    assert.equal(stats.before_end, 1)
    assert.ok(stats.last_five_minutes > 0, 'live visitors near the end')
    const profiles = await one<{ n: number }>("SELECT count() AS n FROM profiles WHERE project_id = 'a'")
    assert.ok(profiles.n > 0)
  })

  it('refuses bad parameters and an unknown project', async () => {
    await assert.rejects(
      seedProject(h.engine, { projectId: 'a', events: 0, days: 0, seed: -1, end: new Date('x') }),
      /--events.*--days.*--seed.*--end/,
    )
    await assert.rejects(seedProject(h.engine, { projectId: 'nope', events: 10, days: 1, seed: 1, end: END }), /no project "nope"/)
    await assert.rejects(
      seedProject(h.engine, { projectId: 'a', events: 10, days: 1, seed: 1, end: END, batchRows: 1000 }),
      /multiple of 65536/,
    )
  })
})
