// /ready (issue 31, items 11 and 17): one engine probe shared by every caller and at most a second old;
// a 503 while the data lane is stuck (statements running past the time limit + 5 s with none ending) or
// while a cancelled statement the kill loop gave up on still runs, which is also counted in Prometheus.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { Session } from 'chdb'
import request from 'supertest'
import type { CompiledQuery } from '../../queries/core/compiled'
import { Runner, STUCK_GRACE_MS } from '../../queries/run/runner'
import { EmbeddedLanes } from '../../server/embedded-lanes'
import { createApp } from '../../server/http/app'
import { createMetrics } from '../../server/http/metrics'
import { MAX_PROBE_AGE_MS, ReadinessProbe } from '../../server/http/readiness'
import { createLogger } from '../../server/logger'
import { startHarness, type Harness } from '../support/harness'
import { recording } from '../support/recording-runner'

const raw = (sql: string, params: CompiledQuery['params'] = {}): CompiledQuery => ({ template: 'test.raw', sql, params })
/** Far longer than any test here waits: it ends only if it is stopped. */
const ENDLESS = raw("SELECT count() AS n FROM numbers({n:UInt64}) WHERE match(toString(number), '^(1|2|3)+7$')", { n: 1e12 })

const until = async (condition: () => boolean | Promise<boolean>) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('/ready', function () {
  this.timeout(60_000)
  let h: Harness
  /** The fake monotonic clock the runners and probes of these tests read, in milliseconds. */
  let now = 0
  const clock = () => now

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  const appOver = (runner: Runner) =>
    createApp({
      config: h.config,
      runner,
      directory: h.directory,
      logger: createLogger('error', true),
      readiness: new ReadinessProbe(runner, clock),
    })

  it('answers every caller from one probe of the engine, at most a second old', async () => {
    const controls: CompiledQuery[] = []
    const app = appOver(recording(h.runner, [], controls))
    const pings = () => controls.filter((compiled) => compiled.template === 'control.ping').length
    const answers = await Promise.all(Array.from({ length: 10 }, () => request(app).get('/ready')))
    assert.deepEqual(
      answers.map((res) => res.status),
      Array(10).fill(200),
    )
    assert.equal(pings(), 1, 'ten callers at once, one probe')
    now += MAX_PROBE_AGE_MS - 1
    await request(app).get('/ready').expect(200)
    assert.equal(pings(), 1, 'a probe younger than a second is reused')
    now += 1
    await request(app).get('/ready').expect(200)
    assert.equal(pings(), 2, 'then a new one runs')
  })

  it('fails while statements have run for longer than the time limit + 5 s without one ending', async () => {
    const runner = new Runner({ lanes: h.engine.openLanes(h.config), guardrails: h.config, maxQueued: 8, clock })
    const app = appOver(runner)
    const abort = new AbortController()
    const endless = runner.run(ENDLESS, { signal: abort.signal })
    try {
      await until(() => runner.inFlight() === 1)
      now += h.config.maxExecutionSeconds * 1000 + STUCK_GRACE_MS
      await request(app).get('/ready').expect(200)
      now += 1
      const stuck = await request(app).get('/ready')
      assert.equal(stuck.status, 503)
      assert.match(stuck.body.message, /data lane is stuck: no statement has ended for 20 s while statements run/)
    } finally {
      abort.abort()
      await endless.catch(() => undefined)
    }
    await until(() => runner.inFlight() === 0)
    await request(app).get('/ready').expect(200)
  })

  it('fails while heavy statements have run for longer than the time limit + 5 s without one ending', async () => {
    const runner = new Runner({ lanes: h.engine.openLanes(h.config), guardrails: h.config, maxQueued: 8, clock })
    const app = appOver(runner)
    const abort = new AbortController()
    const endless = runner.run(ENDLESS, { signal: abort.signal, lane: 'heavy' })
    try {
      await until(() => runner.inFlight() === 1)
      now += h.config.maxExecutionSeconds * 1000 + STUCK_GRACE_MS
      await request(app).get('/ready').expect(200)
      now += 1
      const stuck = await request(app).get('/ready')
      assert.equal(stuck.status, 503)
      assert.match(stuck.body.message, /no heavy statement has ended for 20 s while heavy statements run/)
    } finally {
      abort.abort()
      await endless.catch(() => undefined)
    }
    await until(() => runner.inFlight() === 0)
    await request(app).get('/ready').expect(200)
  })

  it('fails while a cancelled statement the kill loop gave up on still runs, and counts it in Prometheus', async () => {
    const metrics = createMetrics()
    const lanes = new EmbeddedLanes({
      Session,
      dataDir: h.dir,
      guardrails: h.config,
      maxKillTries: 3,
      onUnstoppable: (statement) => metrics.statementObserver.statementUnstoppable?.(statement),
    })
    const runner = new Runner({ lanes, guardrails: h.config, maxQueued: 8, observer: metrics.statementObserver })
    const app = appOver(runner)
    await runner.run(raw('SELECT 1 AS one'))
    // TRICKY: a bound statement holds chDB's process-wide chain of bound statements while it runs; one that
    // waits behind it is not registered yet, so no KILL can find it: the kill loop's tries all miss.
    const blockers = new Session(h.dir)
    const watcher = new Session(h.dir)
    const blockerId = crypto.randomUUID()
    const blocker = blockers.queryBindAsync(`${ENDLESS.sql}\nSETTINGS log_comment = '${blockerId}'`, ENDLESS.params, {
      format: 'JSONEachRow',
    })
    const blockerEnded = blocker.then(
      () => true,
      () => true,
    )
    let waiting: Promise<unknown> | undefined
    try {
      await until(async () =>
        (
          await watcher.queryAsync(`SELECT count() AS n FROM system.processes WHERE Settings['log_comment'] = '${blockerId}'`, {
            format: 'JSONEachRow',
          })
        )
          .text()
          .includes('"n":1'),
      )
      const abort = new AbortController()
      waiting = runner.run(raw('SELECT {x:UInt8} AS x', { x: 7 }), { signal: abort.signal })
      waiting.catch(() => undefined)
      await until(() => runner.inFlight() === 1)
      abort.abort()
      await until(() => lanes.unstoppable() === 1)
      const refused = await request(app).get('/ready')
      assert.equal(refused.status, 503)
      assert.match(refused.body.message, /1 cancelled statement\(s\) could not be stopped and still run/)
      assert.match(await metrics.registry.metrics(), /^quarry_engine_unstoppable_statements_total 1$/m)
    } finally {
      while (!(await Promise.race([blockerEnded, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 50))]))) {
        await watcher.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = '${blockerId}' ASYNC`, { format: 'JSONEachRow' })
      }
      await waiting?.catch(() => undefined)
    }
    await until(() => runner.inFlight() === 0)
    assert.equal(lanes.unstoppable(), 0, 'it ended once the statement ahead of it did')
    await request(app).get('/ready').expect(200)
    lanes.close()
    blockers.close()
    watcher.close()
  })
})
