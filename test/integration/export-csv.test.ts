// CSV export written by the engine: parsed with a real CSV parser (csv-parse), its cells and its exact
// bytes agree with the reference model's rows under the export's quoting rule, formula-like text is
// neutralised (OWASP), and a stream (one statement, or several keyset chunks) carries every row once.
import assert from 'node:assert/strict'
import { parse } from 'csv-parse/sync'
import request from 'supertest'
import { toClickHouseTime } from '../../queries/core/pipeline'
import { STREAM_CHUNK_ROWS } from '../../queries/export/export-resource'
import { exportRows, type RawProfile } from '../reference/export'
import type { RawEvent } from '../reference/model'
import { startWithEvents, type Harness } from '../support/harness'
import { randomEvents } from '../support/random-events'

const PROJECT = { id: 'csv', timezone: 'America/New_York', from: new Date('2024-03-08T00:00:00Z'), days: 5, sessions: 12_000 }
const NOW = new Date('2024-04-01T00:00:00Z')
const FORMULA_START = /^[=+\-@\t\r]/

/** Hostile and awkward values, one set per early event, over every kind of text column. */
const AWKWARD: Partial<RawEvent>[] = [
  {
    name: '=HYPERLINK("http://evil.example","click")',
    path: '+1,2',
    city: '-3',
    os: '@SUM(A1)',
    browser: '\tTab',
    latitude: -33.8688,
    longitude: 151.2093,
  },
  {
    name: 'plain',
    device_id: 'dev "quoted"',
    path: '/a\r\nb',
    city: '\rCR',
    referrer: '=1+1',
    utm_source: 'multi\nline',
    sdk_name: '-sdk',
    properties: { formula: '=1', 'a/b': 'x/y "q"' },
  },
  {
    name: 'screen_view',
    path: '',
    city: '',
    os: 'Windows, 11',
    browser: '"',
    imported_at: '2024-03-09T10:00:00.000Z',
    latitude: 0.1,
    longitude: -0,
  },
]

const PROFILES: RawProfile[] = [
  {
    id: 'user-9-1',
    project_id: PROJECT.id,
    first_name: '=cmd',
    last_name: 'O"Brien',
    email: 'a@b.example',
    avatar: 'https://img.example/a/b.png',
    properties: { plan: '+pro' },
    created_at: '2024-01-01T00:00:00.000Z',
    last_seen_at: '2024-03-01T00:00:00.000Z',
  },
]

/**
 * The export's quoting rule, written out: numbers as they are; text quoted when a special character or
 * a formula start appears, with ' before a formula.
 */
function expectedCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return String(value)
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  if (!FORMULA_START.test(text) && !/[",\r\n]/.test(text)) return text
  return `"${FORMULA_START.test(text) ? "'" : ''}${text.replace(/"/g, '""')}"`
}

describe('export events as CSV', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  let events: RawEvent[]

  before(async () => {
    events = randomEvents(9, PROJECT)
    for (const [index, values] of AWKWARD.entries()) Object.assign(events[index], values)
    events[0].profile_id = PROFILES[0].id
    ;({ h, auth } = await startWithEvents(PROJECT, events))
    h.now = NOW
    const rows = PROFILES.map((profile) => ({
      ...profile,
      created_at: toClickHouseTime(new Date(profile.created_at)),
      last_seen_at: toClickHouseTime(new Date(profile.last_seen_at)),
    }))
    await h.engine.client.insert({ table: 'profiles', values: rows, format: 'JSONEachRow' })
  })
  after(() => h.close())

  const expected = (query: Record<string, string>) => {
    const model = exportRows({ events, profiles: PROFILES, projectId: PROJECT.id, projectTimezone: PROJECT.timezone, query, now: NOW })
    assert.equal(model.status, 200)
    return model.rows
  }
  const csv = (query: Record<string, string>) =>
    request(h.app)
      .get(`/export/events?${new URLSearchParams({ projectId: PROJECT.id, format: 'csv', ...query })}`)
      .set(auth)

  // Without profiles the embedded engine writes the export as one statement read a block at a time; with
  // them, in keyset chunks whose profiles are looked up per chunk.
  for (const [includes, how] of [
    ['properties,meta,geo,device,referrer', 'as one statement, every include but profiles'],
    ['properties,profile,meta,geo,device,referrer', 'over several chunks, with every include'],
  ]) {
    it(`writes the exact bytes of the quoting rule, ${how}`, async () => {
      const rows = expected({ includes })
      assert.ok(rows.length > 2 * STREAM_CHUNK_ROWS, `several chunks: ${rows.length} rows`)
      const res = await csv({ includes })
      assert.equal(res.status, 200)
      // Columns follow the order of `includes` in the request, as before.
      const columns = res.text.slice(0, res.text.indexOf('\r\n')).split(',')
      assert.deepEqual([...columns].sort(), Object.keys(rows[0]).sort())
      const text = `${[columns.join(','), ...rows.map((row) => columns.map((column) => expectedCell(row[column])).join(','))].join('\r\n')}\r\n`
      assert.equal(res.text.length, text.length)
      assert.ok(res.text === text, 'the CSV text is the rule applied to the reference rows')
    })
  }

  for (const [includes, how] of [
    ['properties,meta,geo,referrer', 'as one statement'],
    ['properties,profile,meta,geo,referrer', 'in chunks with profiles'],
  ]) {
    it(`parses with csv-parse into the reference rows, formula-like text neutralised, ${how}`, async () => {
      const rows = expected({ includes })
      const res = await csv({ includes })
      const records = parse(res.text, { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[]
      assert.equal(records.length, rows.length)
      const numeric = new Set(['duration', 'latitude', 'longitude'])
      let neutralised = 0
      records.forEach((record, index) => {
        for (const [column, value] of Object.entries(rows[index])) {
          const text = value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
          if (numeric.has(column)) {
            assert.equal(record[column], text, `${column} of row ${index}`)
            continue
          }
          assert.doesNotMatch(record[column], FORMULA_START, `${column} of row ${index} cannot start a formula`)
          if (FORMULA_START.test(text)) neutralised += 1
          assert.equal(record[column], FORMULA_START.test(text) ? `'${text}` : text, `${column} of row ${index}`)
        }
      })
      assert.equal(neutralised, 8, 'each awkward formula-like value was neutralised')
      const first = records.find((record) => record.id === events[0].id)
      assert.equal(first?.name, `'=HYPERLINK("http://evil.example","click")`)
      assert.equal(first?.latitude, '-33.8688')
      // JSON cells are whole JSON, not neutralised inside.
      assert.equal(JSON.parse(String(records.find((record) => record.id === events[1].id)?.properties)).formula, '=1')
      if (includes.includes('profile')) assert.equal(JSON.parse(String(first?.profile)).firstName, '=cmd')
    })
  }

  it('keeps the header and the export order for a filtered window', async () => {
    const query = {
      start: '2024-03-09',
      end: '2024-03-11',
      event: 'screen_view',
      filters: JSON.stringify([{ name: 'path', operator: 'contains', value: ['blog'] }]),
    }
    const rows = expected(query)
    const res = await csv(query)
    const [header, ...lines] = parse(res.text, { record_delimiter: '\r\n' }) as string[][]
    assert.deepEqual(header, [
      'id',
      'name',
      'deviceId',
      'profileId',
      'sessionId',
      'projectId',
      'createdAt',
      'path',
      'duration',
      'city',
      'country',
      'os',
      'browser',
    ])
    assert.deepEqual(
      lines.map((line) => line[0]),
      rows.map((row) => row.id),
    )
  })
})
