// A ClickHouse server's serving lanes (server/server-lanes.ts), run through @clickhouse/client on chDB's
// connection instead of over HTTP: no server can be installed here, so this checks what the lanes send
// (bound parameters, the settings of each statement) on a real engine. The chDB connection applies each
// request's settings as SET statements on its session, as a server applies them to the statement.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { HEAVY_PRIORITY, QUESTION_PRIORITY } from '../../server/priorities'
import { ServerLanes } from '../../server/server-lanes'
import type { CompiledQuery } from '../../queries/core/compiled'
import { QueryError } from '../../queries/core/errors'
import { parseLines } from '../../queries/core/compiled'
import { Runner, type Statement, type UnstoppableStatement } from '../../queries/run/runner'
import { startHarness, type Harness } from '../support/harness'

type ClientOptions = NonNullable<Parameters<typeof createClient>[0]>

/** A statement that runs for a few seconds and then ends by itself; its text names it among running statements. */
const SLOW: CompiledQuery = {
  template: 'test.slow',
  sql: 'SELECT sleepEachRow(0.1) AS slept FROM numbers({n:UInt64}) SETTINGS max_block_size = 1',
  params: { n: 30 },
}

describe('the serving lanes of a ClickHouse server', () => {
  let h: Harness
  let client: ClickHouseClient
  /** A second connection, as a server's client has other sockets: chDB's connection is one session, on which a KILL waits behind the statement it would stop. */
  let controlClient: ClickHouseClient
  let lanes: ServerLanes

  before(async () => {
    h = await startHarness()
    // TRICKY: as in server/engine.ts, the cast bridges chDB's own copy of @clickhouse/client-common.
    client = createClient({ connection: createChdbConnection({ path: h.dir }) as unknown as ClientOptions['connection'] })
    controlClient = createClient({ connection: createChdbConnection({ path: h.dir }) as unknown as ClientOptions['connection'] })
    lanes = new ServerLanes({ client, controlClient, guardrails: h.config, maxInFlight: 2 })
  })
  after(async () => {
    await client.close()
    await controlClient.close()
    await h.close()
  })

  const statement = (sql: string, params: Statement['params'] = {}): Statement => ({
    sql,
    params,
    id: crypto.randomUUID(),
    signal: new AbortController().signal,
    format: 'JSONEachRow',
  })

  it('binds parameters and runs questions read-only, within the guardrails, at the questions’ priority', async () => {
    const settings = [
      'priority',
      'readonly',
      'max_execution_time',
      'max_result_rows',
      'max_memory_usage',
      'max_bytes_before_external_group_by',
      'max_temporary_data_on_disk_size_for_query',
      'use_index_for_in_with_subqueries',
      'optimize_or_like_chain',
    ]
    const sql = `SELECT {x:String} AS x, ${settings.map((name) => `toString(getSetting('${name}')) AS ${name}`).join(', ')}`
    const [row] = parseLines<Record<string, unknown>>((await lanes.data(statement(sql, { x: "it's" }))).text)
    assert.deepEqual(row, {
      x: "it's",
      priority: String(QUESTION_PRIORITY),
      readonly: '2',
      max_execution_time: String(h.config.maxExecutionSeconds),
      max_result_rows: String(h.config.maxResultRows),
      max_memory_usage: String(h.config.maxMemoryBytes),
      max_bytes_before_external_group_by: String(Math.floor(h.config.maxMemoryBytes / 2)),
      max_temporary_data_on_disk_size_for_query: String(h.config.maxMemoryBytes),
      use_index_for_in_with_subqueries: 'false',
      optimize_or_like_chain: 'false',
    })
  })

  it('runs a heavy statement as a data statement at HEAVY_PRIORITY, read-only', async () => {
    const sql = "SELECT {x:String} AS x, toString(getSetting('priority')) AS priority, toString(getSetting('readonly')) AS readonly"
    const [row] = parseLines<Record<string, unknown>>((await lanes.heavy(statement(sql, { x: 'y' }))).text)
    assert.deepEqual(row, { x: 'y', priority: String(HEAVY_PRIORITY), readonly: '2' })
  })

  it('cannot write through a data statement or a control statement', async () => {
    await assert.rejects(lanes.data(statement('CREATE TABLE through_data (x UInt8) ENGINE = Memory')), /readonly/i)
    await assert.rejects(lanes.control('CREATE TABLE through_control (x UInt8) ENGINE = Memory', new AbortController().signal), /readonly/i)
    const tables = await h.engine.client
      .query({ query: "SELECT name FROM system.tables WHERE name LIKE 'through_%'", format: 'JSONEachRow' })
      .then((rs) => rs.json())
    assert.deepEqual(tables, [])
  })

  // TRICKY: through chDB's connection an aborted single-shot statement goes on running in the background, as a
  // server's does until it notices the closed connection; there even a KILL only marks it cancelled, so it
  // is the case of a statement the server does not stop.
  it("keeps a cancelled statement's turn while the engine runs it, and gives up after its looks, reporting it", async function () {
    this.timeout(60_000)
    const slowRunning = async () => {
      const rows = await h.engine.client
        .query({
          query: "SELECT count() AS n FROM system.processes WHERE query LIKE '%sleepEachRow%' AND query NOT LIKE '%system.processes%'",
          format: 'JSONEachRow',
        })
        .then((rs) => rs.json<{ n: number }>())
      return Number(rows[0].n)
    }
    const until = async (condition: () => boolean | Promise<boolean>) => {
      while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const reported: UnstoppableStatement[] = []
    const watching = new ServerLanes({
      client,
      controlClient,
      guardrails: h.config,
      maxInFlight: 2,
      maxEndChecks: 3,
      onUnstoppable: (statement) => reported.push(statement),
    })
    const runner = new Runner({ lanes: watching, guardrails: h.config, maxQueued: 8 })
    const abort = new AbortController()
    const running = runner.run(SLOW, { signal: abort.signal })
    await until(async () => (await slowRunning()) === 1)
    abort.abort()
    await assert.rejects(running, (error: unknown) => error instanceof QueryError && error.code === 'cancelled')
    assert.equal(runner.inFlight(), 1, 'the request is answered at once, but the turn is kept while the engine runs the statement')
    await until(() => runner.inFlight() === 0)
    assert.deepEqual(
      reported.map((statement) => statement.tries),
      [3],
      'three looks found it running, then the lanes gave up',
    )
    assert.equal(await slowRunning(), 1, 'it still runs')
    assert.equal(watching.unstoppable(), 1)
    assert.match(runner.dataLaneTrouble() ?? '', /1 cancelled statement\(s\) could not be stopped/)
  })
})
