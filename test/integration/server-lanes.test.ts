// A ClickHouse server's serving lanes (server/server-lanes.ts), run through @clickhouse/client on chDB's
// connection instead of over HTTP: no server can be installed here, so this checks what the lanes send
// (bound parameters, the settings of each statement) on a real engine. The chDB connection applies each
// request's settings as SET statements on its session, as a server applies them to the statement.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { QUESTION_PRIORITY } from '../../server/priorities'
import { ServerLanes } from '../../server/server-lanes'
import { parseLines, type Statement } from '../../queries/core/run'
import { startHarness, type Harness } from '../support/harness'

type ClientOptions = NonNullable<Parameters<typeof createClient>[0]>

describe('the serving lanes of a ClickHouse server', function () {
  let h: Harness
  let client: ClickHouseClient
  let lanes: ServerLanes

  before(async () => {
    h = await startHarness()
    // TRICKY: as in server/engine.ts, the cast bridges chDB's own copy of @clickhouse/client-common.
    client = createClient({ connection: createChdbConnection({ path: h.dir }) as unknown as ClientOptions['connection'] })
    lanes = new ServerLanes({ client, guardrails: h.config, maxInFlight: 2 })
  })
  after(async () => {
    await client.close()
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
    const settings = ['priority', 'readonly', 'max_execution_time', 'max_result_rows', 'max_memory_usage', 'use_index_for_in_with_subqueries']
    const sql = `SELECT {x:String} AS x, ${settings.map((name) => `toString(getSetting('${name}')) AS ${name}`).join(', ')}`
    const [row] = parseLines<Record<string, unknown>>((await lanes.data(statement(sql, { x: "it's" }))).text)
    assert.deepEqual(row, {
      x: "it's",
      priority: String(QUESTION_PRIORITY),
      readonly: '2',
      max_execution_time: String(h.config.maxExecutionSeconds),
      max_result_rows: String(h.config.maxResultRows),
      max_memory_usage: String(h.config.maxMemoryBytes),
      use_index_for_in_with_subqueries: 'false',
    })
  })

  it('cannot write through a data statement or a control statement', async () => {
    await assert.rejects(lanes.data(statement('CREATE TABLE through_data (x UInt8) ENGINE = Memory')), /readonly/i)
    await assert.rejects(lanes.control('CREATE TABLE through_control (x UInt8) ENGINE = Memory', new AbortController().signal), /readonly/i)
    const tables = await h.engine.client.query({ query: "SELECT name FROM system.tables WHERE name LIKE 'through_%'", format: 'JSONEachRow' }).then((rs) => rs.json())
    assert.deepEqual(tables, [])
  })
})
