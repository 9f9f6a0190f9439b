import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { Session } from 'chdb'
import { request } from '../support/openapi-request'
import { withSettings, type CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { createApp } from '../../server/http/app'
import { createApiClient, createProject } from '../../server/admin/control'
import { Directory } from '../../server/http/directory'
import { EmbeddedLanes } from '../../server/embedded-lanes'
import { createRunner } from '../../server/engine'
import { createLogger } from '../../server/logger'
import { QUESTION_PRIORITY } from '../../server/priorities'
import { startHarness, type Harness } from '../support/harness'

const raw = (sql: string, params: CompiledQuery['params'] = {}): CompiledQuery => ({ template: 'test.raw', sql, params })
/** Far longer than any test here waits: it ends only if it is stopped. */
const ENDLESS = raw("SELECT count() AS n FROM numbers({n:UInt64}) WHERE match(toString(number), '^(1|2|3)+7$')", { n: 1e12 })
/** The blocks of a stream the engine opened (it opens one unless as many as it may hold are open). */
function opened<T>(blocks: T | undefined): T {
  assert.ok(blocks, 'the engine opened the stream')
  return blocks
}
const codeOf = (code: QueryError['code']) => (error: unknown) => error instanceof QueryError && error.code === code

describe('the engine: one read-only admission point, fair turns, real cancellation', () => {
  let h: Harness

  before(async () => {
    h = await startHarness({ env: { QUARRY_MAX_EXECUTION_SECONDS: '600' } })
  })
  after(() => h.close())

  /** Statements the engine itself is running (asked on the control lane). */
  const running = async () => {
    const rows = await h.runner.control<{ query: string }>(
      raw("SELECT query, elapsed FROM system.processes WHERE query NOT LIKE '%system.processes%'"),
    )
    if (process.env.DEBUG_RUNNING) console.log(rows)
    return rows.length
  }
  const until = async (condition: () => boolean | Promise<boolean>) => {
    while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20))
  }

  it('cannot write through the serving path, not even with a stacked statement', async () => {
    await assert.rejects(h.runner.run(raw('CREATE TABLE stacked (x UInt8) ENGINE = Memory; SELECT 1 AS one')))
    await assert.rejects(h.runner.run(raw('CREATE TABLE single (x UInt8) ENGINE = Memory')))
    await assert.rejects(h.runner.control(raw('CREATE TABLE control_side (x UInt8) ENGINE = Memory')), /readonly/i)
    const tables = await h.engine.client
      .query({ query: "SELECT name FROM system.tables WHERE name IN ('stacked', 'single', 'control_side')", format: 'JSONEachRow' })
      .then((rs) => rs.json())
    assert.deepEqual(tables, [])
  })

  it('stops the engine when the request goes away, and the next statement runs', async function () {
    this.timeout(60_000)
    const abort = new AbortController()
    const endless = h.runner.run(ENDLESS, { signal: abort.signal, clientId: 'a' })
    await until(async () => (await running()) === 1)
    abort.abort()
    await assert.rejects(endless, codeOf('cancelled'))
    const { rows } = await h.runner.run(raw('SELECT {x:UInt8} AS x', { x: 7 }), { clientId: 'b' })
    assert.deepEqual(rows, [{ x: 7 }])
    assert.equal(await running(), 0, 'the cancelled statement no longer runs in the engine')
    assert.equal(h.runner.inFlight(), 0)
  })

  it('stops the engine at the deadline with a typed timeout', async function () {
    this.timeout(60_000)
    const quick = createRunner(h.engine, { ...h.config, maxExecutionSeconds: 1 })
    await assert.rejects(quick.run(ENDLESS), codeOf('timeout'))
    await until(async () => quick.inFlight() === 0)
    // TRICKY: a statement that failed in chDB stays listed in system.processes (idle) until its session
    // runs the next one.
    await quick.run(raw('SELECT 1 AS one'))
    assert.equal(await running(), 0)
  })

  it('bounds each read of a streamed statement by the deadline, not the whole statement', async function () {
    this.timeout(60_000)
    const quick = createRunner(h.engine, { ...h.config, maxExecutionSeconds: 1 })
    const stream = quick.stream
    assert.ok(stream, 'the embedded engine reads a statement a block at a time')
    // Ten blocks of one row, 0.3 s each: 3 s in all, past the 1 s deadline, and every row comes.
    const numbers: number[] = []
    for await (const block of opened(
      stream(raw('SELECT number FROM numbers(10) WHERE sleepEachRow(0.3) = 0 SETTINGS max_block_size = 1')),
    )) {
      numbers.push(
        ...Buffer.from(block.bytes)
          .toString()
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { number: number }).number),
      )
    }
    assert.deepEqual(numbers, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    // A read that alone outlasts the deadline is stopped in the engine.
    await assert.rejects(async () => {
      for await (const block of opened(stream(ENDLESS))) void block
    }, codeOf('timeout'))
    await until(async () => quick.inFlight() === 0)
    await quick.run(raw('SELECT 1 AS one'))
    assert.equal(await running(), 0)
  })

  it('stops a streamed statement in the engine when its request goes away', async function () {
    this.timeout(60_000)
    const abort = new AbortController()
    const stream = h.runner.stream
    assert.ok(stream)
    const reading = (async () => {
      for await (const block of opened(stream(ENDLESS, { signal: abort.signal }))) void block
    })()
    await until(async () => (await running()) === 1)
    abort.abort()
    await assert.rejects(reading, codeOf('cancelled'))
    await until(async () => h.runner.inFlight() === 0)
    await h.runner.run(raw('SELECT 1 AS one'))
    assert.equal(await running(), 0, 'the stream no longer runs in the engine')
  })

  it('closes the sessions of open streams with the lanes', async function () {
    this.timeout(60_000)
    const lanes = new EmbeddedLanes({ Session, dataDir: h.engine.settings.dataDir, guardrails: h.config })
    const signal = new AbortController().signal
    const statement = {
      sql: 'SELECT number FROM numbers(100000) SETTINGS max_block_size = 1000',
      params: {},
      id: crypto.randomUUID(),
      signal,
      format: 'JSONEachRow' as const,
    }
    const stream = opened(lanes.openStream?.(statement))
    assert.ok(await stream.next(signal), 'a first block')
    lanes.close()
    assert.equal(await stream.next(signal), undefined, 'the stream ended with its session')
    stream.close()
  })

  it("applies a statement's own settings to it alone, on every lane and on the admin connection", async function () {
    this.timeout(60_000)
    const priority = raw("SELECT toUInt32(getSetting('priority')) AS p")
    const own = withSettings(priority, { priority: 7 })
    const first = <T>(rows: T[]) => rows[0]
    for (const lane of ['data', 'bounded'] as const) {
      assert.deepEqual(first((await h.runner.run(own, { lane })).rows), { p: 7 }, `${lane}: the statement runs with its own priority`)
      assert.deepEqual(
        first((await h.runner.run(priority, { lane })).rows),
        { p: QUESTION_PRIORITY },
        `${lane}: the next statement runs with the lane's`,
      )
    }
    await assert.rejects(h.runner.run(withSettings(raw('SELECT throwIf(1) AS x'), { priority: 8 })))
    assert.deepEqual(first((await h.runner.run(priority)).rows), { p: QUESTION_PRIORITY }, 'a failed statement gives its settings back too')
    const streamed = opened(h.runner.stream?.(own))
    const text = []
    for await (const block of streamed) text.push(Buffer.from(block.bytes).toString())
    assert.deepEqual(JSON.parse(text.join('')), { p: 7 }, 'a stream runs with its own priority')
    assert.deepEqual(await h.engine.admin.rows(own), [{ p: 7 }])
    assert.deepEqual(await h.engine.admin.rows(priority), [{ p: 0 }], 'the writable connection keeps no setting of the statement before')
    await assert.rejects(h.engine.admin.command(withSettings(raw('SELECT throwIf(1)'), { priority: 8 })))
    assert.deepEqual(await h.engine.admin.rows(priority), [{ p: 0 }], 'nor of a statement that failed')
  })

  it('answers control statements and /ready beside a running data statement', async function () {
    this.timeout(60_000)
    const abort = new AbortController()
    const endless = h.runner.run(ENDLESS, { signal: abort.signal })
    try {
      await until(() => h.runner.inFlight() === 1)
      assert.equal(await h.runner.ping(), true)
      assert.equal(await h.directory.project('nope'), null)
      assert.equal(h.runner.inFlight(), 1, 'the data statement was still running meanwhile')
    } finally {
      abort.abort()
      await endless.catch(() => undefined)
      await until(() => h.runner.inFlight() === 0)
    }
  })

  it('serves the queue by client, the one that used the least engine time first, not first come first served', async function () {
    this.timeout(60_000)
    const finished: string[] = []
    const abort = new AbortController()
    const blocker = h.runner.run(ENDLESS, { signal: abort.signal, clientId: 'greedy' })
    await until(() => h.runner.inFlight() === 1)
    const ask = (clientId: string, n: number) =>
      h.runner.run(raw('SELECT {n:UInt8} AS n', { n }), { clientId }).then(() => finished.push(`${clientId}${n}`))
    const all = [ask('greedy', 1), ask('greedy', 2), ask('greedy', 3), ask('polite', 1), ask('other', 1)]
    assert.equal(h.runner.queueDepth(), 5)
    abort.abort()
    await blocker.catch(() => undefined)
    await Promise.all(all)
    assert.deepEqual(
      finished,
      ['polite1', 'other1', 'greedy1', 'greedy2', 'greedy3'],
      'the others wait only for the statement already running',
    )
  })

  it('refuses with overloaded when the queue is full, and a queued statement leaves it when its request goes', async function () {
    this.timeout(60_000)
    const small = createRunner(h.engine, { ...h.config, engineQueue: 1 })
    const abort = new AbortController()
    const blocker = small.run(ENDLESS, { signal: abort.signal })
    await until(() => small.inFlight() === 1)
    const leaving = new AbortController()
    const queued = small.run(raw('SELECT 1 AS one'), { signal: leaving.signal })
    await assert.rejects(small.run(raw('SELECT 2 AS two')), codeOf('overloaded'))
    leaving.abort()
    await assert.rejects(queued, codeOf('cancelled'))
    assert.equal(small.queueDepth(), 0)
    abort.abort()
    await blocker.catch(() => undefined)
    await until(() => small.inFlight() === 0)
  })

  it('maps a statement over the memory cap to a clear 4xx code', async () => {
    const tight = createRunner(h.engine, { ...h.config, maxMemoryBytes: 8 * 1024 ** 2 })
    await assert.rejects(tight.run(raw('SELECT groupArray(number) AS all FROM numbers(10000000)')), codeOf('too_costly'))
  })

  it('tells the observer how each statement ended', async function () {
    this.timeout(60_000)
    const events: { template: string; clientId?: string; outcome: string; queueWaitMs: number }[] = []
    const observed = createRunner(h.engine, { ...h.config, maxExecutionSeconds: 1 }, { statementFinished: (event) => events.push(event) })
    await observed.run({ template: 'test.ok', sql: 'SELECT 1 AS one', params: {} }, { clientId: 'c1' })
    await observed.run({ template: 'test.bad', sql: 'SELECT throwIf(1) AS boom', params: {} }).catch(() => undefined)
    await observed.run({ ...ENDLESS, template: 'test.slow' }).catch(() => undefined)
    await until(async () => observed.inFlight() === 0)
    assert.deepEqual(
      events.map(({ template, clientId, outcome }) => ({ template, clientId, outcome })),
      [
        { template: 'test.ok', clientId: 'c1', outcome: 'ok' },
        { template: 'test.bad', clientId: undefined, outcome: 'error' },
        { template: 'test.slow', clientId: undefined, outcome: 'timeout' },
      ],
    )
    assert.ok(events.every((event) => event.queueWaitMs >= 0))
  })

  it('over HTTP: /ready and /live answer beside a running statement, and a full queue is a 503 with Retry-After', async function () {
    this.timeout(60_000)
    await createProject(h.engine, { id: 'busy' })
    const client = await createApiClient(h.engine, { type: 'read', projectId: 'busy' })
    const small = createRunner(h.engine, { ...h.config, engineQueue: 1 })
    const app = createApp({ config: h.config, runner: small, directory: new Directory(small, 0), logger: createLogger('error', true) })
    const abort = new AbortController()
    const blocker = small.run(ENDLESS, { signal: abort.signal, clientId: 'greedy' })
    const queued = small.run(raw('SELECT 1 AS one'), { signal: abort.signal, clientId: 'greedy' })
    try {
      await until(() => small.inFlight() === 1 && small.queueDepth() === 1)
      await request(app).get('/ready').expect(200)
      const headers = { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
      await request(app).get('/insights/busy/live').set(headers).expect(200, { visitors: 0 })
      const full = await request(app).get('/insights/busy/metrics?range=7d').set(headers)
      assert.equal(full.status, 503)
      assert.equal(full.headers['retry-after'], '1')
      assert.match(full.body.message, /queue is full/)
      assert.equal(small.inFlight(), 1, 'the long statement was still running meanwhile')
    } finally {
      abort.abort()
      await Promise.allSettled([blocker, queued])
      await until(() => small.inFlight() === 0)
    }
  })
})
