// A hostile client (issue 8): every costly request is refused with a 400 that says how to narrow it,
// before any data statement runs; a bad Host header and a flood of junk client ids do not hurt valid
// requests; with 8 heavy requests in flight, a second client's /ready and /live come back first, and
// every hostile request ends (400 or 504) with the engine idle right after.
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from '../support/openapi-request'
import type { CompiledQuery } from '../../queries/core/compiled'
import { createApp } from '../../server/http/app'
import { createApiClient, createProject } from '../../server/admin/control'
import { Directory } from '../../server/http/directory'
import { createRunner } from '../../server/engine'
import { createLogger } from '../../server/logger'
import { seedProject } from '../../server/admin/seed'
import { loadGolden, startHarness, type Harness } from '../support/harness'

describe('a hostile read client', () => {
  let h: Harness
  let auth: Record<string, string>
  const dataStatements: string[] = []

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_WINDOW_MS: '600000' }, now: new Date('2024-04-01T12:00:00Z') })
    await loadGolden(h.engine)
    const reader = await createApiClient(h.engine, { type: 'read', projectId: 'shop', name: 'hostile reader' })
    auth = { 'openpanel-client-id': reader.id, 'openpanel-client-secret': reader.secret }
    const run = h.runner.run.bind(h.runner)
    h.runner.run = ((query, options) => {
      if (!query.template.startsWith('control')) dataStatements.push(query.template)
      return run(query, options)
    }) as typeof run
  })
  after(() => h.close())
  beforeEach(() => {
    dataStatements.length = 0
  })

  async function refused(url: string, issue: RegExp): Promise<void> {
    const res = await request(h.app).get(url).set(auth)
    assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`)
    assert.equal(res.body.error, 'Bad Request')
    assert.ok(
      res.body.details.issues.some((item: { message: string }) => issue.test(item.message)),
      `${url}: ${JSON.stringify(res.body.details.issues)}`,
    )
    assert.deepEqual(dataStatements, [], `${url} ran no data statement`)
  }

  it('gets a 400 for minute-interval metrics over 30 days, 12 months or since 1970', async () => {
    for (const dates of ['range=30d', 'range=12m', 'startDate=1970-01-01']) {
      await refused(
        `/insights/shop/metrics?${dates}&interval=minute`,
        /this series would have \d+ buckets, more than 5000: narrow the window or widen the interval/,
      )
    }
  })

  it('gets a 400 for a chart of a millennium of days, and for one past the cell cap', async () => {
    const series = encodeURIComponent('[{"name":"*"}]')
    await refused(
      `/export/charts?projectId=shop&series=${series}&interval=day&startDate=1000-01-01&endDate=1999-12-31`,
      /from 1970-01-01 to 2199-12-31/,
    )
    await refused(
      `/export/charts?projectId=shop&series=${series}&interval=day&startDate=1970-01-01&endDate=2199-12-31`,
      /84006 cells .* more than 20000: narrow the window/,
    )
  })

  it('gets a 400 for 100 alternation-heavy regex values', async () => {
    const values = Array.from({ length: 100 }, (_, i) => `^(/(a|b|c|d)+)+${i}(x|y|z)*$`)
    const filters = encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'regex', value: values }]))
    await refused(`/export/events?projectId=shop&limit=1&filters=${filters}`, /at most 20 regex patterns .* holds 100 patterns/)
    await refused(`/insights/shop/pages?filters=${filters}`, /at most 20 regex patterns/)
  })

  it('gets a 400 pointing to cursor for a page deep in the export', async () => {
    await refused('/export/events?projectId=shop&page=10000000&limit=1000', /skips 9999999000 rows, more than 100000: follow "cursor"/)
    const shallow = await request(h.app).get('/export/events?projectId=shop&page=2&limit=5').set(auth)
    assert.equal(shallow.status, 200)
  })

  it('gets a 400, not a 500, for an end date in the year 9999', async () => {
    await refused('/insights/shop/metrics?startDate=2024-01-01&endDate=9999-12-31', /"endDate" must be .* from 1970-01-01 to 2199-12-31/)
    await refused('/export/events?projectId=shop&start=2024-01-01&end=9999-12-31', /"end" must be/)
  })

  it('gets a working Link header whatever its Host header says', async () => {
    for (const host of ['bad host', '[::1', 'a:b:c', '%']) {
      const res = await request(h.app)
        .get('/insights/shop/pages?startDate=2024-03-20&endDate=2024-04-01&limit=1')
        .set(auth)
        .set('Host', host)
      assert.equal(res.status, 200, `Host ${host}: ${JSON.stringify(res.body)}`)
      assert.equal(res.headers.link, '</insights/shop/pages?startDate=2024-03-20&endDate=2024-04-01&limit=1&cursor=2>; rel="next"')
    }
  })

  it('cannot lock the valid client out with failed attempts from the same address', async () => {
    const junk = { 'openpanel-client-id': '00000000-0000-4000-8000-000000000000', 'openpanel-client-secret': 'nope' }
    const statuses: number[] = []
    for (let n = 0; n < 105; n += 1) statuses.push((await request(h.app).get('/insights/shop/live').set(junk)).status)
    assert.deepEqual([...new Set(statuses.slice(0, 100))], [401])
    assert.deepEqual([...new Set(statuses.slice(100))], [429], 'the junk id is limited after 100 failures')
    for (let n = 0; n < 105; n += 1) {
      const other = { ...junk, 'openpanel-client-id': `00000000-0000-4000-8000-${String(n + 1).padStart(12, '0')}` }
      assert.equal((await request(h.app).get('/insights/shop/live').set(other)).status, 401)
    }
    await request(h.app).get('/insights/shop/live').set(auth).expect(200)
  })
})

const PROCESSES: CompiledQuery = {
  template: 'test.processes',
  sql: "SELECT count() AS n FROM system.processes WHERE query NOT LIKE '%system.processes%'",
  params: {},
}

/**
 * A regex filter of 20 alternation-heavy patterns (the most one takes), different for every `tag`. Each
 * pattern matches every path, so the statement does all of its work (no literal the engine could look
 * for first to skip the rows).
 */
function regexFilter(tag: number): object[] {
  const values = Array.from({ length: 20 }, (_, i) => `^/((a|b|c|d|e)+[0-9]*${tag}-${i}(x|y|z)*)?.*$`)
  return [{ name: 'path', operator: 'regex', value: values }]
}

const query = (value: unknown) => encodeURIComponent(JSON.stringify(value))

/** Heavy but valid requests of every kind issue 8 found that still runs: 12 months, regex filters. */
function heavyRequests(first: number): string[] {
  return [
    `/insights/big/pages?range=12m&filters=${query(regexFilter(first))}`,
    `/insights/big/metrics?range=12m&filters=${query(regexFilter(first + 1))}`,
    `/insights/big/referrer?range=12m&filters=${query(regexFilter(first + 2))}`,
    `/export/events?projectId=big&limit=1&filters=${query(regexFilter(first + 3))}`,
    `/export/charts?projectId=big&range=12m&interval=day&series=${query([{ name: 'screen_view', filters: regexFilter(first + 4) }])}`,
    `/insights/big/pages?range=12m&filters=${query(regexFilter(first + 5))}`,
    `/insights/big/metrics?range=12m&filters=${query(regexFilter(first + 6))}`,
  ]
}

interface Ended {
  who: string
  status: number
  body: string
}

describe('a hostile client beside a second client (issue 8)', function () {
  this.timeout(300_000)
  let h: Harness
  let hostile: Record<string, string>
  let second: Record<string, string>

  before(async () => {
    h = await startHarness({
      env: { QUARRY_MAX_EXECUTION_SECONDS: '120', QUARRY_RATE_LIMIT: '100000' },
      now: new Date('2026-01-01T12:00:00Z'),
    })
    await createProject(h.engine, { id: 'big', timezone: 'Europe/Berlin' })
    await seedProject(h.engine, { projectId: 'big', events: 400_000, days: 365, seed: 8, end: new Date('2026-01-01T00:00:00Z') })
    const headersOf = async (name: string) => {
      const client = await createApiClient(h.engine, { type: 'read', projectId: 'big', name })
      return { 'openpanel-client-id': client.id, 'openpanel-client-secret': client.secret }
    }
    hostile = await headersOf('hostile')
    second = await headersOf('second')
  })
  after(() => h.close())

  /** Serves `app` on loopback for the test's requests; real sockets, so a client can really go away. */
  async function serve(app: Harness['app']): Promise<{ url: string; close(): Promise<void> }> {
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening))
    })
    const { port } = server.address() as AddressInfo
    return {
      url: `http://127.0.0.1:${port}`,
      close: async () => {
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      },
    }
  }

  /** Statements the engine itself is running, asked on the control lane. */
  const engineBusy = async () => (await h.runner.control<{ n: number }>(PROCESSES))[0].n
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
  }

  /** Sends a GET and records, in order of ending, who got which status (0: the client went away). */
  const sender = (url: string, ended: Ended[]) => (who: string, path: string, init: RequestInit) =>
    fetch(`${url}${path}`, init).then(
      async (res) => {
        const body = await res.text()
        ended.push({ who, status: res.status, body })
      },
      () => ended.push({ who, status: 0, body: '' }),
    )

  // TRICKY: the test's client shares the gateway's event loop, so this checks the order of turns, not how
  // long a statement keeps that loop busy; bench/abuse.ts measures the latencies from another process.
  it("answers the second client's /ready and /live before the 8 hostile requests in flight end", async () => {
    const finished: string[] = []
    // The statements that ran to their end (the request that goes away is cancelled while queued).
    const runner = createRunner(h.engine, h.config, {
      statementFinished: (event) => event.outcome !== 'cancelled' && finished.push(`${event.template} ${event.outcome}`),
    })
    const gateway = await serve(
      createApp({ config: h.config, runner, directory: new Directory(runner, 0), logger: createLogger('error', true), clock: () => h.now }),
    )
    const ended: Ended[] = []
    const send = sender(gateway.url, ended)
    try {
      const [first, ...rest] = heavyRequests(100).slice(0, 6)
      const attack = [send('hostile 0', first, { headers: hostile })]
      await until(() => runner.inFlight() === 1)
      attack.push(
        ...rest.map((path, n) => send(`hostile ${n + 1}`, path, { headers: hostile })),
        send('hostile stream', '/export/events?projectId=big&format=ndjson', { headers: hostile }),
      )
      const leaving = new AbortController()
      const goneAway = send('hostile gone', `/insights/big/pages?range=12m&filters=${query(regexFilter(200))}`, {
        headers: hostile,
        signal: leaving.signal,
      })
      await until(() => runner.queueDepth() >= 6)
      leaving.abort()
      await goneAway
      const finishedBefore = finished.length
      const answers = [send('second /ready', '/ready', {}), send('second /live', '/insights/big/live', { headers: second })]
      await Promise.all(answers)
      const order = ended.map(({ who, status }) => `${who}: ${status}`).join(', ')
      // Hostile statements run on two lanes (a 12-month question on the heavy one, an export page on the data one),
      // so besides /live at most the two already running may end meanwhile (and their requests answer first);
      // none that got a turn after it asked.
      assert.ok(
        ended.filter(({ who }) => who.startsWith('hostile ') && who !== 'hostile gone').length <= 2,
        `at most the two hostile requests already running ended first: ${order}`,
      )
      const during = finished.slice(finishedBefore)
      assert.ok(
        during.includes('insights.live ok') && during.length <= 3,
        `the second client's /live ran beside the hostile statements already running, not after them: ${during.join(', ')}`,
      )
      await Promise.all(attack)
      const status = (who: string) => ended.find((item) => item.who === who)?.status
      assert.equal(status('second /ready'), 200)
      assert.equal(status('second /live'), 200)
      assert.equal(status('hostile gone'), 0)
      for (const item of ended.filter(({ who }) => who.startsWith('hostile ') && who !== 'hostile gone'))
        assert.equal(item.status, 200, `${item.who}: ${item.body.slice(0, 300)}`)
      await until(() => runner.inFlight() === 0 && runner.queueDepth() === 0)
    } finally {
      await gateway.close()
    }
  })

  it('ends every hostile request in a 400 before it runs or a 504 at the deadline, with the engine idle right after', async () => {
    const statements: string[] = []
    // A quarter of a second (the settings take whole seconds; the runner and the engine take fractions): each
    // of these statements ends well within a second alone, so a 1 s limit would stop none of them.
    const config = { ...h.config, maxExecutionSeconds: 0.25 }
    const quick = createRunner(h.engine, config, { statementFinished: (event) => statements.push(`${event.template} ${event.outcome}`) })
    const gateway = await serve(
      createApp({ config, runner: quick, directory: new Directory(quick, 0), logger: createLogger('error', true) }),
    )
    const ended: Ended[] = []
    const send = sender(gateway.url, ended)
    try {
      const tooMany = query([
        { name: 'path', operator: 'regex', value: Array.from({ length: 100 }, (_, i) => `^(/(a|b|c|d)+)+${i}(x|y|z)*$`) },
      ])
      const refused = [
        '/insights/big/metrics?range=12m&interval=minute',
        '/insights/big/metrics?startDate=1970-01-01&interval=minute',
        `/export/charts?projectId=big&series=${query([{ name: '*' }])}&interval=day&startDate=1000-01-01&endDate=1999-12-31`,
        `/export/events?projectId=big&limit=1&filters=${tooMany}`,
        '/export/events?projectId=big&page=10000000&limit=1000',
        '/insights/big/metrics?startDate=2024-01-01&endDate=9999-12-31',
      ]
      for (const path of refused) await send(`refused ${path}`, path, { headers: hostile })
      assert.deepEqual(
        ended.map(({ status }) => status),
        refused.map(() => 400),
        ended.map(({ body }) => body.slice(0, 200)).join('\n'),
      )
      assert.deepEqual(statements, [], 'no refused request ran a statement')

      ended.length = 0
      const leaving = new AbortController()
      const attack = heavyRequests(300).map((path, n) => send(`hostile ${n}`, path, { headers: hostile }))
      const goneAway = send('hostile gone', `/insights/big/pages?range=12m&filters=${query(regexFilter(400))}`, {
        headers: hostile,
        signal: leaving.signal,
      })
      await until(() => quick.inFlight() === 1 || ended.length === attack.length)
      leaving.abort()
      await Promise.all([...attack, goneAway])
      for (const item of ended.filter(({ who }) => who !== 'hostile gone')) {
        assert.ok([200, 504].includes(item.status), `${item.who}: ${item.status} ${item.body.slice(0, 300)}`)
        if (item.status === 504) assert.equal(JSON.parse(item.body).message, 'The query took longer than the time limit')
      }
      assert.ok(
        ended.some(({ status }) => status === 504),
        `a 0.25 s limit stops some of 7 heavy statements in a row: ${ended.map(({ who, status }) => `${who}: ${status}`).join(', ')}`,
      )

      // TRICKY: a statement stopped in chDB stays listed in system.processes (idle) until its session runs
      // the next one, so the follow-up statement comes first.
      await until(() => quick.inFlight() === 0 && quick.queueDepth() === 0)
      await send('second /live', '/insights/big/live', { headers: second })
      assert.deepEqual([ended.at(-1)?.who, ended.at(-1)?.status], ['second /live', 200])
      assert.equal(await engineBusy(), 0, 'nothing of ours runs in the engine')
    } finally {
      await gateway.close()
    }
  })
})
