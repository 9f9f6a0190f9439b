// The settled check runs before a session question's statement, and its rows are reused by the next
// questions of the same project and days while the data version holds (embedded: no write; on a server:
// no event added) and within one statement limit: the answers must still equal the reference model's
// after late events and compactions.
import assert from 'node:assert/strict'
import type express from 'express'
import request from 'supertest'
import type { CompiledQuery } from '../../queries/core/compiled'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { createProject } from '../../server/admin/control'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { Runner } from '../../queries/run/runner'
import { answerInsights, type RawEvent } from '../reference/model'
import { goldenEvents, insertRawEvents, rootHeaders, startHarness, type Harness } from '../support/harness'
import { recording } from '../support/recording-runner'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }
const NOW = new Date('2024-04-10T00:00:00.000Z')
const WEEK = 'startDate=2024-03-27&endDate=2024-04-02'
const CHECK = 'insights.settled_days'

describe('settled checks reused while they hold', function () {
  this.timeout(120_000)
  let h: Harness
  let auth: Record<string, string>
  const ran: CompiledQuery[] = []
  const controls: CompiledQuery[] = []
  const events = goldenEvents(PROJECT.id)

  const appWith = (config: Harness['config']): express.Express =>
    createApp({
      config,
      runner: recording(h.runner, ran, controls),
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => NOW,
    })

  /** An app over a runner whose engine does not know the data version, so it reads it, as on a server. */
  const readingApp = (config: Harness['config']): express.Express => {
    const reading = new Runner({ lanes: h.engine.openLanes(config), guardrails: config, maxQueued: config.engineQueue })
    return createApp({
      config,
      runner: recording(reading, ran, controls),
      directory: h.directory,
      logger: createLogger('error', true),
      clock: () => NOW,
    })
  }

  /** Asks `url` fresh (no result cache) and checks the answer against the reference model over `events`. */
  async function agrees(app: express.Express, url: string) {
    const [resource, queryString] = url.split('?')
    const expected = answerInsights({
      events,
      projectTimezone: PROJECT.timezone,
      resource,
      query: Object.fromEntries(new URLSearchParams(queryString)),
      now: NOW,
    })
    const res = await request(app)
      .get(`/insights/${PROJECT.id}/${url}`)
      .set({ ...auth, 'cache-control': 'no-cache' })
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(res.body, expected.body, url)
  }

  const checksRun = () => ran.filter((compiled) => compiled.template === CHECK).length
  const readings = () => controls.filter((compiled) => compiled.template === 'control.data-version').length
  /** The settled days the last statement was bound with. */
  const lastSettledDays = () => ran.filter((compiled) => compiled.template !== CHECK).at(-1)?.params.settledDays as string[]

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: NOW })
    await createProject(h.engine, PROJECT)
    auth = await rootHeaders(h.engine)
    await insertRawEvents(h.engine, events, PROJECT.id)
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.ok(report.days > 0, JSON.stringify(report))
  })
  after(() => h.close())
  beforeEach(() => {
    ran.length = 0
    controls.length = 0
  })

  it("runs one check for a window's questions, and binds the settled days it found", async () => {
    const app = appWith(h.config)
    for (const url of [
      `metrics?${WEEK}`,
      `referrer?${WEEK}`,
      `pages?${WEEK}&limit=50`,
      `country?${WEEK}&filters=${encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'contains', value: ['produkte'] }]))}`,
    ]) {
      await agrees(app, url)
    }
    assert.equal(checksRun(), 1)
    // The week's UTC days in Berlin, every one compacted (the clock is a week after it).
    assert.deepEqual(lastSettledDays(), [
      '2024-03-26',
      '2024-03-27',
      '2024-03-28',
      '2024-03-29',
      '2024-03-30',
      '2024-03-31',
      '2024-04-01',
      '2024-04-02',
    ])
    await agrees(app, 'metrics?startDate=2024-03-28&endDate=2024-03-29')
    assert.equal(checksRun(), 2, 'other days, another check')
  })

  it('checks again once an event is added, and counts it', async () => {
    // The result cache may serve a reading of the version up to a minute old: the check reads a new one.
    const app = appWith({ ...h.config, cache: { ...h.config.cache, versionPollMs: 60_000 } })
    await agrees(app, `metrics?${WEEK}`)
    const settledBefore = lastSettledDays()
    assert.ok(settledBefore.includes('2024-03-28'))
    // A second page view an hour after one of 28 March's: that day's read range changed.
    const view = events.find((event) => event.name === 'screen_view' && event.created_at.startsWith('2024-03-28T1')) as RawEvent
    const late = {
      ...view,
      id: 'c1000000-0000-4000-8000-00000000f101',
      created_at: new Date(Date.parse(view.created_at) + 3_600_000).toISOString(),
      path: '/kasse',
    }
    await insertRawEvents(h.engine, [late], PROJECT.id)
    events.push(late)
    await agrees(app, `metrics?${WEEK}`)
    await agrees(app, `pages?${WEEK}&limit=50`)
    assert.equal(checksRun(), 2, 'one check before the insert, one after')
    assert.ok(!lastSettledDays().includes('2024-03-28'), 'the changed day is regrouped')

    // Compacted again: a write on the writable connection, so the embedded version moves and the check
    // runs again, finding the day compacted with its late event.
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.ok(report.days > 0, JSON.stringify(report))
    await agrees(app, `referrer?${WEEK}`)
    assert.equal(checksRun(), 3)
    assert.ok(lastSettledDays().includes('2024-03-28'))
  })

  it("checks again after a compaction where the version is read (a server's way): the compacted tables changed, exactly", async () => {
    const app = readingApp({ ...h.config, cache: { ...h.config.cache, versionPollMs: 60_000 } })
    await agrees(app, `metrics?${WEEK}`)
    const view = events.find((event) => event.name === 'screen_view' && event.created_at.startsWith('2024-03-29T1')) as RawEvent
    const late = {
      ...view,
      id: 'c1000000-0000-4000-8000-00000000f102',
      created_at: new Date(Date.parse(view.created_at) + 3_600_000).toISOString(),
      path: '/spaet',
    }
    await insertRawEvents(h.engine, [late], PROJECT.id)
    events.push(late)
    await agrees(app, `metrics?${WEEK}`)
    assert.equal(checksRun(), 2, 'one check before the insert, one after')
    assert.ok(!lastSettledDays().includes('2024-03-29'), 'the changed day is regrouped')
    // Compacted again: no event added, but the combined tables changed, so the version read moves, the
    // check runs again, and the day is read from its new compaction.
    const report = await compactSessions(h.engine, { ...compactionOptions(h.config), now: NOW })
    assert.ok(report.days > 0, JSON.stringify(report))
    await agrees(app, `referrer?${WEEK}`)
    assert.equal(checksRun(), 3)
    assert.ok(lastSettledDays().includes('2024-03-29'))
  })

  it('reads no data version from the embedded engine, whose writes it counts itself', async () => {
    const app = appWith({ ...h.config, cache: { ...h.config.cache, versionPollMs: 0 } })
    const before = h.engine.dataVersion?.()
    await agrees(app, `metrics?${WEEK}`)
    await agrees(app, `referrer?${WEEK}`)
    assert.equal(readings(), 0)
    assert.equal(checksRun(), 1)
    assert.equal(h.engine.dataVersion?.(), before, 'reading moves nothing')
    // A write through the writable connection, even one that adds no event, moves the version.
    await h.engine.client.command({ query: 'OPTIMIZE TABLE events' })
    assert.notEqual(h.engine.dataVersion?.(), before)
    await agrees(app, `metrics?${WEEK}`)
    assert.equal(checksRun(), 2)
  })

  it("reads the data version (a server's way) once a question when the result cache's reading is new enough for the check", async () => {
    // A runner whose engine does not know the version, as on a server. The cache reads the version for
    // every request (a reading at most 0 ms old), after the question arrived: the check takes that reading
    // instead of its own. After the statement the cache reads it once more, before it stores the rows.
    const app = readingApp({ ...h.config, cache: { ...h.config.cache, versionPollMs: 0 } })
    await agrees(app, `metrics?${WEEK}`)
    await agrees(app, `referrer?${WEEK}`)
    await agrees(app, `pages?${WEEK}&limit=50`)
    assert.equal(readings(), 6)
    assert.equal(checksRun(), 1)
  })

  it('checks again after one statement limit, whatever the data version', async () => {
    const app = appWith({ ...h.config, maxExecutionSeconds: 1 })
    await agrees(app, `metrics?${WEEK}`)
    await agrees(app, `referrer?${WEEK}`)
    assert.equal(checksRun(), 1)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await agrees(app, `metrics?${WEEK}`)
    assert.equal(checksRun(), 2)
    assert.ok(lastSettledDays().includes('2024-03-28'), 'the day compacted since is read settled')
  })
})
