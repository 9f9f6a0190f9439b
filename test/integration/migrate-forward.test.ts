// A data directory of an earlier version migrates forward: migrations 015 and 016 give the partial
// sessions and the events it already stores their keys, and the gateway then answers as the reference
// model, before and after a compaction (both combine partial rows by those keys; /pages tells pages apart
// by theirs).
import assert from 'node:assert/strict'
import request from 'supertest'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createProject } from '../../server/admin/control'
import { migrate } from '../../server/admin/migrate'
import { answerInsights } from '../reference/model'
import { goldenEvents, insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
const NOW = new Date('2024-04-10T00:00:00.000Z')
const WEEK = 'startDate=2024-03-27&endDate=2024-04-02'
const REQUESTS = [`metrics?${WEEK}`, `country?${WEEK}`, `pages?${WEEK}&limit=50`]

describe('a data directory from before migrations 015 and 016', function () {
  this.timeout(120_000)
  let h: Harness
  after(() => h?.close())

  it('gets the keys of the partial sessions and events it stores, and answers as the reference model', async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    await createProject(h.engine, PROJECT)
    const events = goldenEvents(PROJECT.id)
    // Every multi-event session split over two inserts, then the directory as an earlier version left it:
    // no key columns, the migration not recorded.
    await insertRawEvents(h.engine, events.filter((_, index) => index % 2 === 0), PROJECT.id)
    await insertRawEvents(h.engine, events.filter((_, index) => index % 2 === 1), PROJECT.id)
    const command = (query: string) => h.engine.client.command({ query, clickhouse_settings: { mutations_sync: '2' } })
    await command('ALTER TABLE sessions DROP COLUMN session_key, DROP COLUMN profile_key')
    await command('ALTER TABLE events DROP COLUMN page_key')
    await command("ALTER TABLE quarry_migrations DELETE WHERE name IN ('015_session_keys', '016_page_keys')")

    assert.deepEqual(await migrate(h.engine), ['015_session_keys', '016_page_keys'])
    const [keys] = await h.engine.client
      .query({
        query: `SELECT count() AS rows, uniqExact(session_id) AS sessions,
          countIf(session_key = reinterpretAsUInt128(sipHash128(session_id)) AND profile_key = reinterpretAsUInt128(sipHash128(profile_id))) AS keyed
          FROM sessions WHERE project_id = 'shop'`,
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<{ rows: number; sessions: number; keyed: number }>())
    assert.ok(Number(keys.rows) > Number(keys.sessions), `sessions are split over partial rows: ${JSON.stringify(keys)}`)
    assert.equal(Number(keys.keyed), Number(keys.rows), 'every stored partial row has the keys of its session and profile')
    const [pages] = await h.engine.client
      .query({ query: "SELECT count() AS rows, countIf(page_key = reinterpretAsUInt128(sipHash128(origin, path))) AS keyed FROM events WHERE project_id = 'shop'", format: 'JSONEachRow' })
      .then((rs) => rs.json<{ rows: number; keyed: number }>())
    assert.equal(Number(pages.keyed), events.length, 'every stored event has the key of its page')
    assert.equal(Number(pages.rows), events.length)

    const auth = await rootHeaders(h.engine)
    const agrees = async (stage: string) => {
      h.now = NOW
      for (const url of REQUESTS) {
        const [resource, queryString] = url.split('?')
        const expected = answerInsights({ events, projectTimezone: PROJECT.timezone, resource, query: Object.fromEntries(new URLSearchParams(queryString)), now: NOW })
        const res = await request(h.app).get(`/insights/${PROJECT.id}/${url}`).set({ ...auth, 'cache-control': 'no-cache' })
        assert.equal(res.status, expected.status, `${stage}: ${url}`)
        assert.deepEqual(res.body, expected.body, `${stage}: ${url}`)
      }
    }
    await agrees('partial rows regrouped')
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date() })
    assert.ok(report.days > 0, 'the compaction combined some days')
    await agrees(`${report.days} day(s) compacted`)
  })
})
