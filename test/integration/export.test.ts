// /export/events against the embedded engine: keyset walks (with inserts between pages) and offset
// pages return every matching event exactly once, streams carry every row, and the reference model
// agrees on randomized exports.
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from '../support/openapi-request'
import { createProject } from '../../server/admin/control'
import type { CompiledQuery } from '../../queries/core/compiled'
import type { StatementRunner } from '../../queries/run/runner'
import { writeStream } from '../../queries/run/streams'
import { STREAM_CHUNK_ROWS, exportEvents, exportStream } from '../../queries/export/export-resource'
import { exportRows } from '../reference/export'
import type { RawEvent } from '../reference/model'
import { insertRawEvents, startWithEvents, type Harness } from '../support/harness'
import { Random } from '../support/random'
import { CHOICES, randomEvents } from '../support/random-events'

const raw = (sql: string): CompiledQuery => ({ template: 'test.raw', sql, params: {} })
const SEED = Number(process.env.QUARRY_DIFF_SEED ?? 77)
const WALKS = Number(process.env.QUARRY_EXPORT_WALKS ?? 50)
const PROJECT = { id: 'exp', timezone: 'Europe/Berlin', from: new Date('2024-03-24T00:00:00Z'), days: 10, sessions: 300 }
const INCLUDES = ['properties', 'geo', 'device', 'referrer', 'meta', 'profile', 'page', 'revenue', 'groups']

function randomExportQuery(random: Random): Record<string, string> {
  const query: Record<string, string> = {}
  if (random.chance(0.5)) query.includes = INCLUDES.filter(() => random.chance(0.4)).join(',')
  if (random.chance(0.3)) query.event = random.pick(['screen_view', 'purchase,add_to_cart', 'signup'])
  if (random.chance(0.4)) query.start = random.pick(['2024-03-26', '2024-03-30T12:00:00+01:00', '2024-03-31'])
  if (random.chance(0.4)) query.end = random.pick(['2024-03-31', '2024-04-02T06:30:00Z', '2024-04-10'])
  if (query.start && query.end && query.start.slice(0, 10) >= query.end.slice(0, 10)) delete query.end
  if (random.chance(0.4)) {
    const place = random.pick(CHOICES.places)
    query.filters = JSON.stringify([
      random.pick([
        { name: 'country', operator: 'is', value: [place.country] },
        { name: 'path', operator: 'contains', value: ['blog'] },
        { name: 'properties.price', operator: 'gte', value: [10] },
        { name: 'referrer_name', operator: 'isNotNull' },
      ]),
    ])
  }
  if (random.chance(0.15)) query.timezone = random.pick(['UTC', 'America/New_York'])
  return query
}

describe('export events', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  let events: RawEvent[]

  before(async () => {
    events = randomEvents(SEED, PROJECT)
    ;({ h, auth } = await startWithEvents(PROJECT, events))
  })
  after(() => h.close())

  const get = (query: Record<string, string>) =>
    request(h.app)
      .get(`/export/events?${new URLSearchParams({ projectId: PROJECT.id, ...query })}`)
      .set(auth)

  async function walk(query: Record<string, string>, limit: number, between?: (page: number) => Promise<void>) {
    const rows: Record<string, unknown>[] = []
    let cursor: string | null = null
    for (let page = 1; page < 10_000; page += 1) {
      const res = await get({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.equal(res.body.meta.current, page)
      rows.push(...res.body.data)
      cursor = res.body.meta.nextCursor
      if (!cursor) break
      await between?.(page)
    }
    return rows
  }

  it(`agrees with the reference model on ${WALKS} randomized keyset walks`, async () => {
    const random = new Random(SEED)
    for (let n = 0; n < WALKS; n += 1) {
      const query = randomExportQuery(random)
      const limit = random.int(25, 150)
      const replay = `walk #${n}: limit=${limit} ${new URLSearchParams(query)}`
      const expected = exportRows({
        events,
        profiles: [],
        projectId: PROJECT.id,
        projectTimezone: PROJECT.timezone,
        query,
        now: new Date('2024-04-10T00:00:00Z'),
      })
      assert.equal(expected.status, 200, replay)
      const rows = await walk(query, limit)
      assert.deepEqual(rows, expected.rows, replay)
      const first = await get({ ...query, limit: String(limit) })
      assert.equal(first.body.meta.totalCount, expected.rows.length, replay)
      assert.equal(first.body.meta.pages, Math.ceil(expected.rows.length / limit), replay)
    }
  })

  it('returns every event exactly once while new events are inserted between pages', async () => {
    const before = (await walk({}, 1000)).map((row) => row.id as string)
    const extra = randomEvents(SEED + 1, { ...PROJECT, sessions: 30 })
    const seen = await walk({}, 37, async (page) => {
      if (page <= 3)
        await insertRawEvents(
          h.engine,
          extra.filter((_, index) => index % 3 === page - 1),
          PROJECT.id,
        )
    })
    const ids = seen.map((row) => row.id as string)
    assert.equal(new Set(ids).size, ids.length, 'no event twice')
    for (const id of before) assert.ok(ids.includes(id), `event ${id} present`)
    const order = seen.map((row) => `${row.createdAt}`)
    for (let i = 1; i < seen.length; i += 1) {
      assert.ok(Date.parse(order[i - 1]) >= Date.parse(order[i]), `newest first at ${i}`)
    }
    events.push(...extra)
  })

  it('pages by offset in the same order as the cursor walk', async () => {
    const all = await walk({}, 100)
    const limit = 45
    for (let page = 1; page <= Math.ceil(all.length / limit); page += 1) {
      const res = await get({ limit: String(limit), page: String(page) })
      assert.deepEqual(res.body.data, all.slice((page - 1) * limit, page * limit), `page ${page}`)
      assert.equal(res.body.meta.current, page)
      assert.equal(res.body.meta.nextCursor === null, page * limit >= all.length)
    }
  })

  it('streams every row as NDJSON and CSV, in the same order', async () => {
    const all = await walk({ includes: 'geo,properties' }, 1000)
    const ndjson = await get({ format: 'ndjson', includes: 'geo,properties' })
    assert.equal(ndjson.status, 200)
    assert.match(String(ndjson.headers['content-type']), /application\/x-ndjson/)
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    assert.deepEqual(lines, all)
    assert.ok(
      all.some((event) => String(event.path).includes('/')),
      'the fixture has paths with slashes',
    )
    assert.equal(
      ndjson.text,
      `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
      'NDJSON text is written as JSON.stringify writes it: no escaped slashes',
    )
    const csv = await get({ format: 'csv', includes: 'properties' })
    assert.match(String(csv.headers['content-type']), /text\/csv/)
    const [header, ...records] = csv.text.trimEnd().split('\r\n')
    assert.equal(header, 'id,name,deviceId,profileId,sessionId,projectId,createdAt,path,duration,city,country,os,browser,properties')
    assert.equal(records.length, all.length)
    assert.ok(records[0].startsWith(`${all[0].id},${all[0].name},`))
  })

  it('400s a forged cursor instead of passing it to ClickHouse', async () => {
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    for (const cursor of [
      forge([1711000000000, '--------0000-0000-0000-000000000000', 1]),
      forge([-5, '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001', 1]),
      forge(['x']),
      'not base64 at all!',
      forge([1e20, '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001', 1]),
    ]) {
      const res = await get({ cursor })
      assert.equal(res.status, 400, cursor)
      assert.deepEqual(res.body.details.issues[0].path, ['cursor'])
    }
  })

  it('400s paging parameters on a stream and unknown includes', async () => {
    const res = await get({ format: 'csv', limit: '5', includes: 'geo,secrets' })
    assert.equal(res.status, 400)
    assert.deepEqual(res.body.details.issues.map((issue: { path: unknown[] }) => issue.path.join('.')).sort(), ['includes.1', 'limit'])
  })

  it('stops querying when a streaming client disconnects', async () => {
    const many = randomEvents(SEED + 2, { ...PROJECT, sessions: 20_000 })
    await createProject(h.engine, { id: 'big' })
    await insertRawEvents(h.engine, many, 'big')
    // Statements run, and blocks read from a streamed one, with the rows those blocks carried.
    let reads = 0
    let streamedRows = 0
    const { runText, stream } = h.runner
    assert.ok(stream, 'the embedded engine reads a statement a block at a time')
    const patched = h.runner as { runText: typeof runText; stream?: typeof stream }
    patched.runText = (...args) => {
      reads += 1
      return runText.apply(h.runner, args)
    }
    patched.stream = (...args) => {
      const blocks = stream(...args)
      return (
        blocks &&
        (async function* () {
          for await (const block of blocks) {
            reads += 1
            streamedRows += block.rows
            yield block
          }
        })()
      )
    }
    const server = h.app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const { port } = server.address() as AddressInfo
      await new Promise<void>((resolve, reject) => {
        const req = http.get({ port, host: '127.0.0.1', path: '/export/events?projectId=big&format=ndjson', headers: auth }, (res) => {
          res.once('data', () => {
            req.destroy()
            resolve()
          })
        })
        req.on('error', (error) => (error.message.includes('socket hang up') ? resolve() : reject(error)))
      })
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const afterDisconnect = reads
      await new Promise((resolve) => setTimeout(resolve, 1500))
      assert.ok(afterDisconnect > 0, 'the export read something')
      assert.equal(reads, afterDisconnect, 'no reads after the client went away')
      assert.ok(
        streamedRows > 0 && streamedRows < many.length,
        `read as one stream, stopped early: ${streamedRows} of ${many.length} rows read`,
      )
    } finally {
      patched.runText = runText
      patched.stream = stream
      server.close()
    }
  })

  it('streams an export of several chunks completely, once each, newest first', async () => {
    const res = await request(h.app).get('/export/events?projectId=big&format=ndjson').set(auth)
    assert.equal(res.status, 200)
    const rows = res.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; createdAt: string })
    const expected = await h.engine.client
      .query({ query: "SELECT count() AS n FROM events WHERE project_id = 'big'", format: 'JSONEachRow' })
      .then((rs) => rs.json<{ n: number }>())
    assert.ok(rows.length > 2 * STREAM_CHUNK_ROWS, `several chunks: ${rows.length} rows`)
    assert.equal(rows.length, expected[0].n)
    assert.equal(new Set(rows.map((row) => row.id)).size, rows.length)
    for (let i = 1; i < rows.length; i += 1) assert.ok(Date.parse(rows[i - 1].createdAt) >= Date.parse(rows[i].createdAt), `order at ${i}`)
  })

  it("writes a stream's exact bytes whether it runs as one statement or in keyset chunks (a server's way)", async () => {
    const chunked: StatementRunner = { run: h.runner.run.bind(h.runner), runText: h.runner.runText.bind(h.runner) }
    const project = { id: 'big', name: 'big', timezone: PROJECT.timezone }
    const queries = [
      { format: 'ndjson' },
      { format: 'csv', includes: 'geo,device,referrer,meta,properties' },
      {
        format: 'ndjson',
        event: 'screen_view',
        includes: 'properties',
        start: '2024-03-26',
        filters: JSON.stringify([{ name: 'path', operator: 'contains', value: ['blog'] }]),
      },
      { format: 'csv', start: '2024-03-30T12:00:00+01:00', end: '2024-04-02T06:30:00Z', timezone: 'America/New_York' },
    ]
    for (const raw of queries) {
      const query = exportEvents.plan(exportEvents.parse({ projectId: 'big', ...raw }, { project, now: new Date(), sessionLookbackMs: 0 }))
      const [whole, chunks] = await Promise.all(
        [h.runner, chunked].map(async (runner) => {
          const pieces: Buffer[] = []
          const write = async (piece: string | Uint8Array) => void pieces.push(Buffer.from(piece))
          const rows = await writeStream({ runner, plan: exportStream, query, signal: new AbortController().signal, write })
          return { text: Buffer.concat(pieces).toString(), rows }
        }),
      )
      assert.ok(whole.rows > 0, JSON.stringify(raw))
      assert.equal(whole.rows, chunks.rows, JSON.stringify(raw))
      assert.ok(whole.text === chunks.text, `the same bytes: ${JSON.stringify(raw)}`)
    }
  })

  it('runs an export in keyset chunks while the engine holds as many open streams as it may, and streams it again after', async () => {
    const { runText, stream } = h.runner
    assert.ok(stream)
    const url = '/export/events?projectId=big&format=csv&includes=geo'
    const expected = (await request(h.app).get(url).set(auth)).text
    const held = []
    for (let blocks = stream(raw('SELECT 1 AS one')); blocks; blocks = stream(raw('SELECT 1 AS one'))) held.push(blocks)
    let chunkStatements = 0
    const patched = h.runner as { runText: typeof runText }
    patched.runText = (...args) => {
      chunkStatements += 1
      return runText.apply(h.runner, args)
    }
    try {
      assert.ok(held.length > 0)
      const res = await request(h.app).get(url).set(auth)
      assert.equal(res.status, 200)
      assert.ok(chunkStatements > 2, `keyset chunks ran: ${chunkStatements}`)
      assert.ok(res.text === expected, 'the same bytes as the streamed export')
    } finally {
      patched.runText = runText
      await Promise.all(held.map((blocks) => blocks.return?.()))
    }
    const again = stream(raw('SELECT 1 AS one'))
    assert.ok(again, 'closed streams free their places')
    await again.return?.()
  })
})
