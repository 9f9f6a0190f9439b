// One turn per request (issue 31, "waits at most one statement already running"): a session question's
// statement starts in the slot its settled check frees, not behind the statements other clients queued
// meanwhile, so the question waits for a turn once.
import assert from 'node:assert/strict'
import request from 'supertest'
import type { CompiledQuery } from '../../queries/core/compiled'
import { Runner } from '../../queries/run/runner'
import { createApp } from '../../server/http/app'
import { createLogger } from '../../server/logger'
import { goldenEvents, startWithEvents, type Harness } from '../support/harness'

const PROJECT = { id: 'shop', timezone: 'Europe/Berlin' }

/** A statement that holds the engine for `seconds` (at most the engine's 3 s of sleep per block). */
const slow = (n: number, seconds = 0.5): CompiledQuery => ({
  template: `test.slow${n}`,
  sql: `SELECT sum(sleepEachRow(${seconds / 10})) AS n FROM numbers(10)`,
  params: {},
})

describe('one turn per request', function () {
  this.timeout(60_000)
  let h: Harness
  let auth: Record<string, string>

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, goldenEvents(PROJECT.id)))
  })
  after(() => h.close())

  it("runs a session question's statement in the slot its check frees, before other clients' waiting statements", async () => {
    const finished: string[] = []
    const lanes = h.engine.openLanes(h.config)
    assert.equal(lanes.maxInFlight, 1, 'the embedded engine runs one data statement at a time')
    const runner = new Runner({
      lanes,
      guardrails: h.config,
      maxQueued: 16,
      observer: { statementFinished: (event) => finished.push(event.template) },
    })
    const app = createApp({ config: h.config, runner, directory: h.directory, logger: createLogger('error', true) })
    const live = await request(app).get(`/insights/${PROJECT.id}/live`).set(auth)
    assert.equal(live.status, 200, 'a first request warms the credential check')
    finished.length = 0
    const hog = runner.forClient('hog')
    const running = hog.run(slow(0, 2.5))
    const question = request(app)
      .get(`/insights/${PROJECT.id}/metrics?startDate=2024-03-27&endDate=2024-04-02`)
      .set({ ...auth, 'cache-control': 'no-cache' })
    const answered = question.then((res) => res)
    // The question's check is queued behind the running statement before the hog queues two more.
    while (runner.queueDepth() === 0) {
      assert.deepEqual(finished, [], 'the question arrived while the first statement ran')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    const queued = [hog.run(slow(1)), hog.run(slow(2))]
    const res = await answered
    await Promise.all([running, ...queued])
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(finished, ['test.slow0', 'insights.settled_days', 'insights.metrics', 'test.slow1', 'test.slow2'])
  })
})
