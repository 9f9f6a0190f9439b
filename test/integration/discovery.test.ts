// The discovery routes (`/events/names`, `/events/properties`, `/events/property_values`): the golden
// fixture's hand-worked answers (fixtures/golden/expected-discovery.json, derivations in
// WORKED-discovery.md) against the gateway and the reference model, and the summaries kept right by every
// way events arrive: inserts, the migration's backfill of events stored before it, and an import rerun.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { request } from '../support/openapi-request'
import { answerDiscovery, type DiscoveryResource } from '../reference/discovery'
import { FIXTURES, goldenEvents, goldenProjects, loadGolden, startHarness, type Harness } from '../support/harness'
import { importEvents } from '../../server/admin/importer'
import { listMigrations, migrate, renderMigration } from '../../server/admin/migrate'

interface GoldenCase {
  name: string
  project: string
  now: string
  path: string
  status: number
  body: unknown
  next?: boolean
}

const cases = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'golden', 'expected-discovery.json'), 'utf8')) as GoldenCase[]
const SUMMARIES = ['event_names', 'event_property_keys', 'event_property_values']

/** A golden case's path asking Quarry's rows (`detail=true`), which the golden answers are. */
const detailed = (urlPath: string) => `${urlPath}${urlPath.includes('?') ? '&' : '?'}detail=true`

/** `/insights/shop/events/property_values?key=a` -> the model's resource and query. */
function modelQuery(urlPath: string): { resource: DiscoveryResource; query: Record<string, string> } {
  const url = new URL(urlPath, 'http://golden')
  return { resource: url.pathname.split('/').pop() as DiscoveryResource, query: Object.fromEntries(url.searchParams) }
}

describe('discovery routes', () => {
  let h: Harness
  let auth: Record<string, string>
  const zones = new Map(goldenProjects().map((project) => [project.id, project.timezone]))

  /** Every golden case's answer from the gateway, asked fresh (no cached rows). */
  async function askEveryCase(): Promise<void> {
    for (const golden of cases.filter((c) => c.status === 200)) {
      h.now = new Date(golden.now)
      const res = await request(h.app).get(detailed(golden.path)).set(auth).set('Cache-Control', 'no-cache')
      assert.equal(res.status, 200, `${golden.name}: ${JSON.stringify(res.body)}`)
      assert.deepEqual(res.body, golden.body, golden.name)
    }
  }

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    const root = await loadGolden(h.engine)
    auth = { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  })
  after(() => h.close())

  describe('the gateway answers as worked out by hand', () => {
    for (const golden of cases) {
      it(golden.name, async () => {
        h.now = new Date(golden.now)
        const res = await request(h.app).get(detailed(golden.path)).set(auth)
        assert.equal(res.status, golden.status, JSON.stringify(res.body))
        if (golden.status !== 200) {
          assert.ok(res.body.details.issues.length >= 1)
          return
        }
        assert.deepEqual(res.body, golden.body)
        if (golden.next !== undefined) assert.equal(Boolean(res.headers.link), golden.next, `Link: ${res.headers.link}`)
      })
    }
  })

  describe('the reference model answers as worked out by hand', () => {
    for (const golden of cases) {
      it(golden.name, () => {
        const { resource, query } = modelQuery(golden.path)
        const answer = answerDiscovery({
          events: goldenEvents(golden.project),
          projectTimezone: zones.get(golden.project) as string,
          resource,
          query,
          now: new Date(golden.now),
        })
        assert.equal(answer.status, golden.status)
        if (golden.status === 200) assert.deepEqual(answer.body, golden.body)
        if (golden.next !== undefined) assert.equal(answer.next, golden.next)
      })
    }
  })

  it('links the next page with the same parameters and the next cursor', async () => {
    h.now = new Date('2024-04-03T12:00:00.000Z')
    const res = await request(h.app).get('/insights/shop/events/names?startDate=2024-03-30&endDate=2024-03-31&limit=2').set(auth)
    assert.equal(res.status, 200)
    assert.equal(res.headers.link, '</insights/shop/events/names?startDate=2024-03-30&endDate=2024-03-31&limit=2&cursor=2>; rel="next"')
  })

  it('shares cached rows between requests that differ only in the timezone lastSeen is shown in, and shows each its own', async () => {
    h.now = new Date('2024-04-03T12:00:00.000Z')
    const window = 'startDate=2024-03-29T10:00:00Z&endDate=2024-04-02T13:30:00Z'
    const first = await request(h.app).get(`/insights/blog/events/names?${window}&timezone=UTC&detail=true`).set(auth)
    const second = await request(h.app).get(`/insights/blog/events/names?${window}&timezone=Asia/Kolkata&detail=true`).set(auth)
    assert.equal(second.headers['x-cache'], 'hit')
    for (const [res, timezone] of [
      [first, 'UTC'],
      [second, 'Asia/Kolkata'],
    ] as const) {
      const expected = answerDiscovery({
        events: goldenEvents('blog'),
        projectTimezone: 'UTC',
        resource: 'names',
        query: { startDate: '2024-03-29T10:00:00Z', endDate: '2024-04-02T13:30:00Z', timezone },
        now: h.now,
      })
      assert.deepEqual(res.body, expected.body, timezone)
    }
    assert.match(second.body[0].lastSeen, /\+05:30$/)
  })

  /** Every summary's rows, summed per bucket and text, as a reader sees them. */
  async function summedRows(): Promise<unknown[]> {
    const sums = SUMMARIES.map(
      (table) =>
        `SELECT '${table}' AS summary, * EXCEPT (events${table === 'event_names' ? ', last_seen' : ''}), sum(events) AS counted${table === 'event_names' ? ', max(last_seen) AS latest' : ''} FROM ${table} GROUP BY ALL ORDER BY ALL`,
    )
    const rows: unknown[] = []
    for (const query of sums) rows.push(...(await h.engine.client.query({ query, format: 'JSONEachRow' }).then((rs) => rs.json())))
    return rows
  }

  it('rebuilds the summaries of the days an import rerun finds short of their events, as the views wrote them', async () => {
    const written = await summedRows()
    // The summaries of one shop day lose their rows, as when an import is killed between the events' part
    // and the views' parts: the rerun moves no event, finds the day and rebuilds it.
    for (const table of ['event_property_values', 'event_names']) {
      await h.engine.client.command({
        query: `ALTER TABLE ${table} DELETE WHERE project_id = 'shop' AND toDate(bucket) = '2024-03-30' SETTINGS mutations_sync = 2`,
      })
    }
    const report = await importEvents(h.engine, { projectId: 'shop', file: path.join(FIXTURES, 'golden', 'shop.ndjson'), skipBad: false })
    assert.deepEqual(report, {
      imported: 0,
      duplicates: goldenEvents('shop').length,
      resessioned: 0,
      rediscovered: 1,
      skipped: 0,
      badLines: 0,
      bad: [],
    })
    assert.deepEqual(await summedRows(), written)
    await askEveryCase()
    const again = await importEvents(h.engine, { projectId: 'shop', file: path.join(FIXTURES, 'golden', 'shop.ndjson'), skipBad: false })
    assert.equal(again.rediscovered, 0, 'nothing left to rebuild')
  })

  it('counts the events stored before the migration: its backfill fills the summaries', async () => {
    for (const table of SUMMARIES) {
      await h.engine.admin.command({ template: 'test.drop-view', sql: `DROP VIEW IF EXISTS ${table}_mv`, params: {} })
      await h.engine.admin.command({ template: 'test.drop-summary', sql: `DROP TABLE IF EXISTS ${table}`, params: {} })
    }
    await h.engine.admin.command({
      template: 'test.forget-migration',
      sql: "ALTER TABLE quarry_migrations DELETE WHERE name = '003_event_discovery' SETTINGS mutations_sync = 2",
      params: {},
    })
    assert.deepEqual(await migrate(h.engine), ['003_event_discovery'])
    await askEveryCase()
  })

  it('counts every event once when the migration is cut short and run again (each statement rerun)', async () => {
    const migration = listMigrations().find((candidate) => candidate.name === '003_event_discovery')
    assert.ok(migration)
    for (const statement of renderMigration(migration.text, { database: 'default' })) await h.engine.client.command({ query: statement })
    await askEveryCase()
  })
})
