// Sessions split over several inserts and events that arrive late, for days already queried (settled):
// after each insert the gateway must agree with the reference model over everything inserted so far.
import assert from 'node:assert/strict'
import { Session } from 'chdb'
import request from 'supertest'
import { COMBINED_TABLES } from '../../queries/sessions/combined-tables'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createProject } from '../../server/admin/control'
import { answerInsights, type RawEvent } from '../reference/model'
import { goldenEvents, insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
const NOW = new Date('2024-04-10T00:00:00.000Z')
const WEEK = 'startDate=2024-03-27&endDate=2024-04-02'
const REQUESTS = [
  `metrics?${WEEK}`,
  `metrics?${WEEK}&interval=hour`,
  `pages?${WEEK}&limit=50`,
  `referrer?${WEEK}&limit=50`,
  `region?${WEEK}&limit=50`,
  `country?${WEEK}&filters=${encodeURIComponent(JSON.stringify([{ name: 'entry_path', operator: 'is', value: ['/produkte/socken', '/'] }]))}`,
  `pages?${WEEK}&filters=${encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'contains', value: ['produkte'] }]))}`,
  `browser?${WEEK}&filters=${encodeURIComponent(JSON.stringify([{ name: 'name', operator: 'is', value: ['screen_view'] }]))}`,
]

/** A late event of an existing session: a copy of one of its events, moved in time, with a new id. */
function lateEvent(base: RawEvent, changes: Partial<RawEvent> & { id: string; created_at: string }): RawEvent {
  return { ...base, ...changes }
}

describe('sessions split over inserts, and late events for settled days', function () {
  this.timeout(300_000)
  let h: Harness
  let auth: Record<string, string>
  const inserted: RawEvent[] = []
  const all = goldenEvents(PROJECT.id)

  async function insert(events: RawEvent[]) {
    await insertRawEvents(h.engine, events, PROJECT.id)
    inserted.push(...events)
  }

  /**
   * Compacts the settled days that changed, for the gateway's lookback unless told, keeping replaced
   * compactions as long as the gateway would unless told.
   */
  const compact = (options: { lookbackMs?: number; keepSupersededMs?: number } = {}) =>
    compactSessions(h.engine, { ...compactionOptions(h.config), ...options, now: new Date() })

  /** The compactions each combined table holds for each day, as 'day compaction' texts. */
  async function storedCompactions(): Promise<Record<string, string[]>> {
    const stored: Record<string, string[]> = {}
    for (const { table } of COMBINED_TABLES) {
      const rows = await h.engine.client
        .query({
          query: `SELECT DISTINCT day, toString(compaction) AS compaction FROM ${table} ORDER BY day, compaction`,
          format: 'JSONEachRow',
        })
        .then((rs) => rs.json<{ day: string; compaction: string }>())
      stored[table] = rows.map((row) => `${row.day} ${row.compaction}`)
    }
    return stored
  }

  /** Per combined table and month, the share of the rows its active parts store that deletes masked. */
  async function maskedShares(): Promise<Record<string, number>> {
    const shares: Record<string, number> = {}
    for (const { table } of COMBINED_TABLES) {
      const rows = await h.engine.client
        .query({
          query: `SELECT partition_id, (SELECT sum(rows) FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active AND partition_id = live.partition_id) AS stored, live.rows AS live
            FROM (SELECT _partition_id AS partition_id, count() AS rows FROM ${table} GROUP BY partition_id) AS live`,
          format: 'JSONEachRow',
        })
        .then((rs) => rs.json<{ partition_id: string; stored: number | string; live: number | string }>())
      for (const row of rows) shares[`${table} ${row.partition_id}`] = 1 - Number(row.live) / Number(row.stored)
    }
    return shares
  }

  /** Waits (up to 60 s) until the engine has no mutation left to do: a month's rewrite runs in the background. */
  async function mutationsDone(): Promise<void> {
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const [{ pending }] = await h.engine.client
        .query({
          query: 'SELECT count() AS pending FROM system.mutations WHERE database = currentDatabase() AND NOT is_done',
          format: 'JSONEachRow',
        })
        .then((rs) => rs.json<{ pending: number | string }>())
      if (Number(pending) === 0) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.fail('mutations still running after 60 s')
  }

  /** The compactions the records of the gateway's lookback name, as 'day compaction' texts. */
  async function recordedCompactions(): Promise<string[]> {
    const rows = await h.engine.client
      .query({
        query: `SELECT DISTINCT day, toString(compaction) AS compaction FROM session_compactions FINAL WHERE lookback_seconds = ${h.config.sessionLookbackHours * 3600} ORDER BY day, compaction`,
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<{ day: string; compaction: string }>())
    return rows.map((row) => `${row.day} ${row.compaction}`)
  }

  /** A condition on a combined table's rows: of a compaction that a record of the gateway's lookback names. */
  const ofRecorded = () =>
    `(day, compaction) IN (SELECT day, compaction FROM session_compactions FINAL WHERE project_id = 'shop' AND lookback_seconds = ${h.config.sessionLookbackHours * 3600})`

  /** Agrees as the rows are, then once every settled day is compacted (sessions_settled read). */
  async function agrees(stage: string) {
    await agreesNow(`${stage}, partial rows`)
    const report = await compact()
    assert.ok(report.days > 0, `${stage}: the insert changed some settled day`)
    await agreesNow(`${stage}, ${report.days} day(s) compacted`)
  }

  async function agreesNow(stage: string) {
    h.now = NOW
    for (const url of REQUESTS) {
      const [resource, queryString] = url.split('?')
      const query = Object.fromEntries(new URLSearchParams(queryString))
      const expected = answerInsights({ events: inserted, projectTimezone: PROJECT.timezone, resource, query, now: NOW })
      // A fresh answer: the tests below change the settled tables behind the data version's back.
      const res = await request(h.app)
        .get(`/insights/${PROJECT.id}/${url}`)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.equal(res.status, expected.status, `${stage}: ${url}`)
      assert.deepEqual(res.body, expected.body, `${stage}: ${url}`)
    }
  }

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    await createProject(h.engine, PROJECT)
    auth = await rootHeaders(h.engine)
  })
  after(() => h.close())

  it('agrees when every session arrives one event per insert, in reverse time order', async () => {
    // Odd lines first, then even lines in reverse: every multi-event session is split over inserts.
    await insert(all.filter((_, index) => index % 2 === 1))
    await agrees('odd events only')
    for (const event of all
      .filter((_, index) => index % 2 === 0)
      .reverse()
      .slice(0, 10))
      await insert([event])
    await agrees('ten single-event inserts')
    await insert(
      all
        .filter((_, index) => index % 2 === 0)
        .reverse()
        .slice(10),
    )
    await agrees('all events')
    const split = await h.engine.client
      .query({
        query:
          "SELECT countIf(parts > 1) AS split FROM (SELECT session_id, count() AS parts FROM sessions WHERE project_id = 'shop' GROUP BY session_id)",
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<{ split: number }>())
    assert.ok(Number(split[0].split) >= 20, `most shop sessions are split: ${JSON.stringify(split)}`)
  })

  it('agrees after late events change settled sessions: a new first event, a second page view, a later end', async () => {
    const s26 = all.find((event) => event.session_id === 's-shop-26') as RawEvent
    const s33 = all.find((event) => event.session_id === 's-shop-33' && event.name === 'screen_view') as RawEvent
    const s04 = all.filter((event) => event.session_id === 's-shop-04').at(-1) as RawEvent
    await insert([
      // S26 gets an earlier first event on another page, from another referrer: its entry page, start and
      // attributes change.
      lateEvent(s26, {
        id: 'c1000000-0000-4000-8000-00000000f001',
        name: 'screen_view',
        created_at: '2024-04-01T06:55:00.000Z',
        path: '/',
        referrer: 'https://late.example/',
        referrer_name: 'Late',
      }),
      // S33 was a bounce; a second page view an hour later makes it one no longer.
      lateEvent(s33, {
        id: 'c1000000-0000-4000-8000-00000000f002',
        created_at: new Date(Date.parse(s33.created_at) + 3_600_000).toISOString(),
        path: '/kasse',
      }),
      // S04's late custom event moves its end (and duration) only.
      lateEvent(s04, {
        id: 'c1000000-0000-4000-8000-00000000f003',
        name: 'scroll',
        created_at: new Date(Date.parse(s04.created_at) + 600_000).toISOString(),
      }),
    ])
    await agrees('late events')
  })

  it('regroups days between settled ones from the lookback before them to the lookback after them', async () => {
    const base = all.find((event) => event.name === 'screen_view') as RawEvent
    const visit = (session: string, id: string, createdAt: string, path: string) =>
      lateEvent(base, { id, session_id: session, profile_id: `p-${session}`, device_id: `d-${session}`, created_at: createdAt, path })
    // Two sessions across UTC midnights, each split over two inserts: X from 03-27 into 03-28, Y from
    // 03-30 into 03-31 (UTC days; the gateway's lookback is a day).
    await insert([
      visit('s-midnight-x', 'c2000000-0000-4000-8000-00000000f001', '2024-03-27T23:50:00.000Z', '/'),
      visit('s-midnight-y', 'c2000000-0000-4000-8000-00000000f002', '2024-03-30T23:50:00.000Z', '/'),
    ])
    await insert([
      visit('s-midnight-x', 'c2000000-0000-4000-8000-00000000f003', '2024-03-28T00:10:00.000Z', '/kasse'),
      visit('s-midnight-y', 'c2000000-0000-4000-8000-00000000f004', '2024-03-31T00:20:00.000Z', '/kasse'),
    ])
    await agrees('sessions across midnight, compacted')
    // A late event on 03-29 changes the ranges of 03-28 to 03-30: those days are regrouped, 03-27 and
    // 03-31 stay settled. X's later partial row (on 03-28) is grouped with its first, read from the
    // lookback before 03-28, so X keeps its start on 03-27; Y's (on 03-31) is read from the lookback
    // after 03-30, so Y keeps its end and its second view.
    await insert([visit('s-midnight-z', 'c2000000-0000-4000-8000-00000000f005', '2024-03-29T12:00:00.000Z', '/')])
    await agrees('a late event between settled days')
  })

  it('reads each day from the compaction its record names, with replaced ones beside it, and drops those only when no reader can be reading them', async () => {
    // Every insert above changed some days, compacted again each time: their replaced compactions are
    // still kept (the gateway's keep), beside the recorded ones, and every answer agreed.
    const recorded = await recordedCompactions()
    const beside = (await storedCompactions()).sessions_settled.filter((entry) => !recorded.includes(entry))
    assert.ok(beside.length > 0, 'replaced compactions are kept for a while')
    await agreesNow('replaced compactions beside the recorded ones')

    assert.equal((await compact({ keepSupersededMs: 3_600_000 })).dropped, 0, 'none was replaced an hour ago')
    const masked = (shares: Record<string, number>) => Object.entries(shares).filter(([, value]) => value >= 0.2)
    assert.deepEqual(masked(await maskedShares()), [], 'no deleted rows yet')

    // A mutation of sessions_settled still running (merges stopped keep it so): its replaced compactions wait
    // for a later run instead of a delete that would wait behind it, and the other tables drop theirs.
    const command = (query: string) => h.engine.client.command({ query })
    await command('SYSTEM STOP MERGES sessions_settled')
    try {
      await command('ALTER TABLE sessions_settled DELETE WHERE 0 SETTINGS mutations_sync = 0')
      const waited = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('the compaction waited behind a running mutation')), 30_000).unref(),
      )
      const deferredRun = await Promise.race([compact({ keepSupersededMs: 0 }), waited])
      assert.equal(deferredRun.deferred, 1, JSON.stringify(deferredRun))
      assert.deepEqual(
        (await storedCompactions()).sessions_settled.filter((entry) => !recorded.includes(entry)),
        beside,
        'sessions_settled keeps its replaced compactions',
      )
      assert.ok(deferredRun.dropped > 0, 'the other tables dropped theirs')
    } finally {
      // On a session of its own: a delete left waiting would hold the writable connection's queue.
      const side = new Session(h.dir)
      await side.queryAsync('SYSTEM START MERGES sessions_settled')
      side.close()
    }
    await mutationsDone()
    await agreesNow('replaced compactions dropped but from sessions_settled')
    const report = await compact({ keepSupersededMs: 0 })
    assert.equal(report.deferred, 0, JSON.stringify(report))
    assert.ok(report.dropped >= beside.length, JSON.stringify(report))
    for (const [table, entries] of Object.entries(await storedCompactions())) {
      for (const entry of entries) assert.ok(recorded.includes(entry), `${table} keeps only recorded compactions, not ${entry}`)
    }
    // Most of each month's rows were replaced compactions: the months are rewritten without them.
    assert.ok(report.rewritten > 0, JSON.stringify(report))
    await mutationsDone()
    assert.deepEqual(masked(await maskedShares()), [], 'no month keeps a fifth of its rows masked')
    await agreesNow('replaced compactions dropped')
  })

  it('counts a day once while a later compaction of it is being swapped in (its rows beside the recorded ones)', async () => {
    await h.engine.client.command({
      query: `INSERT INTO sessions_settled SELECT * REPLACE (compaction + 1 AS compaction) FROM sessions_settled WHERE project_id = 'shop' AND day = '2024-03-28'`,
    })
    await agreesNow('a later compaction of a day beside the recorded one')
    // Newer than every record, as a compaction being built is: kept, however short the keep.
    const recorded = await recordedCompactions()
    const later = (await storedCompactions()).sessions_settled.filter(
      (entry) => entry.startsWith('2024-03-28') && !recorded.includes(entry),
    )
    assert.equal(later.length, 1)
    await compact({ keepSupersededMs: 0 })
    assert.ok((await storedCompactions()).sessions_settled.includes(later[0]), 'a compaction newer than every record is kept')
    await agreesNow('a later compaction of a day kept beside the recorded one')
  })

  it("keeps a compaction that another lookback's compaction of the day replaced, while its own records name it", async () => {
    const lookbackMs = h.config.sessionLookbackHours * 3_600_000
    const recorded = await recordedCompactions()
    const before = await storedCompactions()
    const other = await compact({ lookbackMs: lookbackMs / 2, keepSupersededMs: 0 })
    assert.ok(other.days > 0, JSON.stringify(other))
    const after = await storedCompactions()
    for (const [table, entries] of Object.entries(before)) {
      for (const entry of entries.filter((stored) => recorded.includes(stored)))
        assert.ok(after[table].includes(entry), `${table}: the gateway's compaction ${entry} is kept`)
    }
    const others = after.sessions_settled.filter((entry) => !recorded.includes(entry))
    assert.ok(others.length > 0, "the other lookback's compactions sit beside them")
    await agreesNow("another lookback's compactions beside the recorded ones")
  })

  // The tests below change the settled tables without adding an event: each starts on a new app, whose
  // settled checks see the compactions above (an app reuses a check's rows while no event is added).
  it('reads compacted days from sessions_settled, not from partial rows', async () => {
    h.newApp()
    const week = async () =>
      (
        await request(h.app)
          .get(`/insights/${PROJECT.id}/metrics?${WEEK}`)
          .set({ ...auth, 'cache-control': 'no-cache' })
      ).body.metrics.total_sessions as number
    const before = await week()
    // A copy of one settled session under a new id, in the same compacted day: only a reader of
    // sessions_settled counts it.
    await h.engine.client.command({
      query: `INSERT INTO sessions_settled SELECT * REPLACE (concat(session_id, '-copy') AS session_id)
        FROM sessions_settled WHERE project_id = 'shop' AND session_start >= '2024-03-28' AND session_start < '2024-03-29' AND ${ofRecorded()} LIMIT 1`,
    })
    assert.equal(await week(), before + 1)
  })

  it('reads compacted breakdowns without filters from session_rollup, not from sessions_settled', async () => {
    h.newApp()
    const countries = async (query = '') => {
      const res = await request(h.app)
        .get(`/insights/${PROJECT.id}/country?${WEEK}&limit=50${query}`)
        .set({ ...auth, 'cache-control': 'no-cache' })
      assert.equal(res.status, 200)
      return res.body as { name: string | null; sessions: number; pageviews: number }[]
    }
    const everySession = `&filters=${encodeURIComponent(JSON.stringify([{ name: 'country', operator: 'isNot', value: ['XX'] }]))}`
    const [before, filteredBefore] = [await countries(), await countries(everySession)]
    // A copy of one settled rollup row: only a reader of session_rollup counts it; a filter reads the sessions.
    const where = `project_id = 'shop' AND dimension = 'country' AND hour >= '2024-03-28' AND hour < '2024-03-29' AND ${ofRecorded()} ORDER BY hour, name LIMIT 1`
    const [row] = await h.engine.client
      .query({ query: `SELECT name, sessions, views FROM session_rollup WHERE ${where}`, format: 'JSONEachRow' })
      .then((rs) => rs.json<{ name: string; sessions: number; views: number }>())
    await h.engine.client.command({ query: `INSERT INTO session_rollup SELECT * FROM session_rollup WHERE ${where}` })
    const countryOf = (rows: { name: string | null; sessions: number; pageviews: number }[]) =>
      rows.find((entry) => (entry.name ?? '') === row.name)
    const after = await countries()
    assert.equal(countryOf(after)?.sessions, (countryOf(before)?.sessions ?? 0) + Number(row.sessions))
    assert.equal(countryOf(after)?.pageviews, (countryOf(before)?.pageviews ?? 0) + Number(row.views))
    assert.deepEqual(await countries(everySession), filteredBefore)
  })

  /** The week's pages, asked fresh, with the filters of `query`. */
  const pagesOf = async (query = '') => {
    const res = await request(h.app)
      .get(`/insights/${PROJECT.id}/pages?${WEEK}&limit=50${query}`)
      .set({ ...auth, 'cache-control': 'no-cache' })
    assert.equal(res.status, 200)
    return res.body as { origin: string; path: string; sessions: number; pageviews: number }[]
  }
  const pageIn = (rows: { origin: string; path: string; sessions: number; pageviews: number }[], page: { origin: string; path: string }) =>
    rows.find((entry) => entry.origin === page.origin && entry.path === page.path)

  it('reads compacted page views from page_rollup without session filters, not from page rows or events', async () => {
    h.newApp()
    const before = await pagesOf()
    // A copy of one settled rollup row of first views: only a reader of page_rollup counts it.
    const rollupRow = () =>
      `project_id = 'shop' AND hour >= '2024-03-28' AND hour < '2024-03-29' AND previous_hour < '2024-03-27' AND ${ofRecorded()} ORDER BY hour, path`
    const [row] = await h.engine.client
      .query({
        query: `SELECT origin, path, page_rows, views FROM page_rollup WHERE ${rollupRow()} LIMIT 1`,
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<{ origin: string; path: string; page_rows: number; views: number }>())
    await h.engine.client.command({
      query: `INSERT INTO page_rollup SELECT * FROM page_rollup WHERE ${rollupRow()} LIMIT 1`,
    })
    const after = await pagesOf()
    assert.equal(pageIn(after, row)?.sessions, (pageIn(before, row)?.sessions ?? 0) + Number(row.page_rows))
    assert.equal(pageIn(after, row)?.pageviews, (pageIn(before, row)?.pageviews ?? 0) + Number(row.views))
  })

  it('reads compacted page views from page_views_settled when a filter restricts the sessions', async () => {
    h.newApp()
    const everySession = `&filters=${encodeURIComponent(JSON.stringify([{ name: 'country', operator: 'isNot', value: ['XX'] }]))}`
    const before = await pagesOf(everySession)
    // A second copy of one settled row of a first view (its session passes the filter): only a reader
    // of page_views_settled counts it.
    const where = `project_id = 'shop' AND bucket >= '2024-03-28' AND bucket < '2024-03-29' AND previous_at < '2024-03-27' AND ${ofRecorded()}`
    const [row] = await h.engine.client
      .query({
        query: `SELECT origin, path, views FROM page_views_settled WHERE ${where} ORDER BY bucket, session_id LIMIT 1`,
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json<{ origin: string; path: string; views: number }>())
    await h.engine.client.command({
      query: `INSERT INTO page_views_settled SELECT * FROM page_views_settled WHERE ${where} ORDER BY bucket, session_id LIMIT 1`,
    })
    const after = await pagesOf(everySession)
    assert.equal(pageIn(after, row)?.sessions, (pageIn(before, row)?.sessions ?? 0) + 1)
    assert.equal(pageIn(after, row)?.pageviews, (pageIn(before, row)?.pageviews ?? 0) + Number(row.views))
  })
})
