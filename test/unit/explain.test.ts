// `explain` resolves a request as Express serves it (route matching, path decoding, query parsing) and
// prints every statement of /export/events: a JSON page's rows and count, or a stream's chunk.
import assert from 'node:assert/strict'
import type { QueryError } from '../../queries/core/errors'
import { encodeCursor } from '../../queries/export/export-events'
import { STREAM_CHUNK_ROWS } from '../../queries/export/export-resource'
import type { Scope } from '../../queries/core/pipeline'
import { COMPACTION_DEFINITION } from '../../queries/sessions/definition'
import { explainRequest, explainTarget, resolveRequest } from '../../server/admin/explain'

const scopeFor = (id: string): Scope => ({
  project: { id, name: id, timezone: 'Europe/Berlin' },
  now: new Date('2024-03-31T12:00:00Z'),
  sessionLookbackMs: 86_400_000,
})

/** The params JSON of each statement in an explain text, in order. */
function paramsOf(text: string): Record<string, unknown>[] {
  return [...text.matchAll(/^-- params: (\{[^]*?^-- \})$/gm)].map(
    ([, json]) => JSON.parse(json.replace(/^-- /gm, '')) as Record<string, unknown>,
  )
}

const statementLabels = (text: string) => [...text.matchAll(/^-- statement: (.+)$/gm)].map(([, label]) => label)
const templatesOf = (text: string) => [...text.matchAll(/^-- template: (.+)$/gm)].map(([, name]) => name)

describe('explain', () => {
  describe('resolves requests with Express', () => {
    it('matches paths as the gateway does: any letter case, a trailing slash, encoded segments', async () => {
      const resolved = await resolveRequest('/INSIGHTS/sh%6Fp/Referrer/?range=30d')
      assert.equal(resolved?.route.path, '/insights/:projectId/referrer')
      assert.deepEqual(resolved?.params, { projectId: 'shop' })
      assert.deepEqual(resolved?.query, { range: '30d' })
    })

    it("parses the query string with the gateway's parser: repeats as lists, + as a space, brackets as plain keys", async () => {
      const resolved = await resolveRequest(
        '/insights/shop/pages?limit=5&limit=6&filters=[{"name":"path","value":["a+b"]}]&q=x+y%2Bz&c[d]=1',
      )
      assert.deepEqual(resolved?.query, { limit: ['5', '6'], filters: '[{"name":"path","value":["a b"]}]', q: 'x y+z', 'c[d]': '1' })
    })

    it('finds no route for an unknown path, and refuses a path Express cannot decode', async () => {
      assert.equal(await resolveRequest('/insights/shop/nothing'), undefined)
      await assert.rejects(
        explainRequest('/nowhere', scopeFor, true),
        (error: QueryError) => error.code === 'not_found' && error.message === 'No endpoint /nowhere',
      )
      await assert.rejects(
        resolveRequest('/insights/%E0%A4%A/live'),
        (error: QueryError) => error.code === 'invalid_request' && /Failed to decode param/.test(error.message),
      )
    })

    it('reads the project from the path or the query string', async () => {
      assert.equal((await explainTarget('/insights/shop/live')).projectId, 'shop')
      assert.equal((await explainTarget('/export/charts?projectId=a&series=[]')).projectId, 'a')
      assert.equal((await explainTarget('/export/events?project_id=b')).projectId, 'b')
      assert.equal((await explainTarget('/export/events?format=csv')).projectId, undefined)
      assert.equal((await explainTarget('/nowhere?projectId=c')).projectId, undefined)
    })

    it('tells a session question, whose settled check runs first, from others', async () => {
      assert.equal((await explainTarget('/insights/shop/metrics?range=30d')).settledCheck, true)
      assert.equal((await explainTarget('/insights/shop/live')).settledCheck, false)
    })

    it('lists every problem of a request it cannot compile, as the gateway would', async () => {
      await assert.rejects(explainRequest('/insights/shop/pages?limit=5&limit=6&bogus=1', scopeFor, true), (error: QueryError) => {
        assert.deepEqual(error.issues.map((issue) => issue.path.join('.')).sort(), ['bogus', 'limit'])
        return true
      })
      await assert.rejects(explainRequest('/export/events?format=csv', scopeFor, true), /name the project/)
    })
  })

  describe('session questions', () => {
    it('prints the settled check first, then the statement compiled with no settled day when no engine runs the check, and says so', async () => {
      const text = await explainRequest('/insights/shop/referrer?startDate=2024-03-30&endDate=2024-03-31', scopeFor, true)
      assert.deepEqual(templatesOf(text), ['insights.settled_days', 'insights.dimension_rollup'])
      const labels = statementLabels(text)
      assert.equal(labels.length, 2)
      assert.match(labels[0], /not run here/)
      assert.match(labels[1], /compiled with no settled day/)
      const [check, statement] = paramsOf(text)
      assert.deepEqual(check, {
        projectId: 'shop',
        lookbackSeconds: 86400,
        firstDay: '2024-03-29',
        lastDay: '2024-03-31',
        countFrom: '2024-03-28 00:00:00.000',
        countTo: '2024-04-02 00:00:00.000',
        definition: COMPACTION_DEFINITION,
      })
      assert.deepEqual([statement.settledDays, statement.settledCompactions], [[], []])
    })

    it('prints a statement without a check alone, unlabelled', async () => {
      const text = await explainRequest('/insights/shop/live', scopeFor, true)
      assert.deepEqual(templatesOf(text), ['insights.live'])
      assert.deepEqual(statementLabels(text), [])
    })
  })

  describe('/export/events', () => {
    it('prints a CSV stream as one statement where the engine streams, and its first keyset chunk on a server', async () => {
      const url = '/export/events?projectId=demo&format=csv'
      const window = { projectId: 'demo', start: '1970-01-01 00:00:00.000', end: '2299-12-31 00:00:00.000', tz: 'Europe/Berlin', offset: 0 }
      const whole = await explainRequest(url, scopeFor, true)
      assert.deepEqual(statementLabels(whole), ['stream (the whole stream as one statement, read a block at a time)'])
      assert.deepEqual(templatesOf(whole), ['export.events-csv-lines'])
      assert.deepEqual(paramsOf(whole), [{ ...window, rowsToRead: 0xffff_ffff }])
      assert.match(whole, /LIMIT \{rowsToRead:UInt32\} OFFSET \{offset:UInt64\}\) AS chunk$/)
      const chunk = await explainRequest(url, scopeFor, false)
      assert.deepEqual(statementLabels(chunk), ["chunk (the first; each next chunk continues after the previous chunk's last row)"])
      assert.deepEqual(templatesOf(chunk), ['export.events-csv'])
      assert.deepEqual(paramsOf(chunk), [{ ...window, rowsToRead: STREAM_CHUNK_ROWS }])
      assert.match(chunk, /LIMIT \{rowsToRead:UInt32\} OFFSET \{offset:UInt64\}\) AS chunk\n\)$/)
    })

    it('prints an NDJSON stream without profiles as one statement of rows where the engine streams', async () => {
      const text = await explainRequest('/export/events?projectId=demo&format=ndjson', scopeFor, true)
      assert.deepEqual(templatesOf(text), ['export.events'])
      assert.deepEqual(
        paramsOf(text).map((params) => params.rowsToRead),
        [0xffff_ffff],
      )
    })

    it('prints the chunk and the profile look-up of an NDJSON stream with profiles', async () => {
      const text = await explainRequest('/export/events?projectId=demo&format=ndjson&includes=profile&event=purchase', scopeFor, true)
      assert.deepEqual(templatesOf(text), ['export.events', 'export.profiles'])
      assert.deepEqual(paramsOf(text)[1], { projectId: 'demo', ids: [] })
      assert.match(text, /AND name IN \{events:Array\(String\)\}/)
    })

    it('prints the rows (one more than the page) and the count of an offset page', async () => {
      const text = await explainRequest('/export/events?projectId=demo&page=3&limit=5&start=2024-03-01&end=2024-03-31', scopeFor, true)
      assert.deepEqual(statementLabels(text), ['rows', 'count'])
      assert.deepEqual(templatesOf(text), ['export.events', 'export.count'])
      const window = { projectId: 'demo', start: '2024-02-29 23:00:00.000', end: '2024-03-31 22:00:00.000' }
      assert.deepEqual(paramsOf(text), [{ ...window, tz: 'Europe/Berlin', rowsToRead: 6, offset: 10 }, window])
    })

    it('prints the keyset condition of a cursor page, from offset 0', async () => {
      const cursor = encodeCursor({ createdAtMs: Date.UTC(2024, 2, 1, 10), id: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001', page: 4 })
      const text = await explainRequest(`/export/events?projectId=demo&limit=2&cursor=${cursor}`, scopeFor, true)
      const [rows, count] = paramsOf(text)
      assert.deepEqual(rows, {
        projectId: 'demo',
        start: '1970-01-01 00:00:00.000',
        end: '2299-12-31 00:00:00.000',
        tz: 'Europe/Berlin',
        rowsToRead: 3,
        offset: 0,
        afterAt: '2024-03-01 10:00:00.000',
        afterId: '0b8f2f6e-3f0e-4d8a-9a51-8f2b9c1d0001',
      })
      assert.deepEqual(count, { projectId: 'demo', start: '1970-01-01 00:00:00.000', end: '2299-12-31 00:00:00.000' })
      assert.match(
        text,
        /AND \(created_at, toUInt128\(events\.id\)\) < \(\{afterAt:DateTime64\(3, 'UTC'\)\}, toUInt128\(\{afterId:UUID\}\)\)/,
      )
    })
  })

  it('prints a single-statement route as before: template, params, SQL', async () => {
    const text = await explainRequest('/insights/shop/live', scopeFor, true)
    assert.equal(text.split('\n')[0], '-- template: insights.live')
    assert.deepEqual(paramsOf(text), [{ projectId: 'shop', since: '2024-03-31 11:55:00.000', now: '2024-03-31 12:00:00.000' }])
    assert.deepEqual(statementLabels(text), [])
  })
})
