// `npm run cli -- export` writes the same bytes as `GET /export/events` streams, for NDJSON and CSV,
// over several blocks of the one streamed statement and for a window.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { runCliIn } from '../support/cli'
import { startHarness, startWithEvents, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { randomEvents } from '../support/random-events'

const PROJECT = { id: 'file', timezone: 'Asia/Kolkata', from: new Date('2024-05-01T00:00:00Z'), days: 6, sessions: 7_000 }

const cli = runCliIn

describe('CLI export', function () {
  this.timeout(600_000)
  let h: Harness
  let auth: Record<string, string>
  const filters = JSON.stringify([{ name: 'path', operator: 'startsWith', value: ['/p'] }])
  // Each CLI option is the API parameter of the same name.
  const cases = [
    { format: 'ndjson', args: [] as string[] },
    { format: 'csv', args: [] as string[] },
    { format: 'csv', args: ['--start', '2024-05-02', '--end', '2024-05-04'] },
    { format: 'ndjson', args: ['--event', 'purchase,signup', '--filters', filters, '--includes', 'geo,revenue'] },
  ]
  const bodies: string[] = []

  before(async () => {
    ;({ h, auth } = await startWithEvents(PROJECT, randomEvents(5, PROJECT)))
    for (const { format, args } of cases) {
      const named = Object.fromEntries(args.flatMap((arg, at) => (arg.startsWith('--') ? [[arg.slice(2), args[at + 1]]] : [])))
      const query = new URLSearchParams({ projectId: PROJECT.id, format, ...named })
      const res = await request(h.app).get(`/export/events?${query}`).set(auth)
      assert.equal(res.status, 200)
      bodies.push(res.text)
    }
    assert.ok(bodies[0].split('\n').length > 20_001, 'several blocks')
    assert.ok(bodies[3].split('\n').length > 100 && bodies[3].length < bodies[0].length / 4, 'the options narrow the export to some rows')
    // One process holds a data directory at a time: the CLI opens it once the gateway's engine is closed.
    await h.engine.close()
  })
  after(() => fs.rmSync(h.dir, { recursive: true, force: true }))

  cases.forEach(({ format, args }, index) => {
    it(`writes the HTTP export's bytes: ${format} ${args.join(' ')}`, async () => {
      const out = path.join(h.dir, `export-${index}.${format}`)
      const result = await cli(h.dir, ['export', '--project', PROJECT.id, '--format', format, ...args, '--out', out])
      assert.equal(result.code, 0, result.err)
      const rows = bodies[index].split(format === 'csv' ? /\r\n(?=[0-9a-f]{8}-)/ : '\n').length - 1
      assert.match(result.out, new RegExp(`exported ${rows} event\\(s\\)`))
      assert.ok(fs.readFileSync(out, 'utf8') === bodies[index], 'same bytes')
      assert.ok(!fs.existsSync(`${out}.partial`))
    })
  })

  it('refuses an unknown project or format, and a bad date, naming the problem', async () => {
    const out = path.join(h.dir, 'never.csv')
    const unknown = await cli(h.dir, ['export', '--project', 'nope', '--out', out])
    assert.equal(unknown.code, 1)
    assert.match(unknown.err, /no project "nope"/)
    const format = await cli(h.dir, ['export', '--project', PROJECT.id, '--format', 'xml', '--out', out])
    assert.match(format.err, /--format must be ndjson or csv/)
    const date = await cli(h.dir, ['export', '--project', PROJECT.id, '--start', 'soon', '--out', out])
    assert.match(date.err, /--start: "start" must be YYYY-MM-DD/)
    assert.ok(!fs.existsSync(out))
  })

  it('round-trips: export with every event field, import into a new project, same answers and events', async () => {
    const out = path.join(h.dir, 'round-trip.ndjson')
    const exported = await cli(h.dir, [
      'export',
      '--project',
      PROJECT.id,
      '--includes',
      'properties,geo,device,referrer,meta,page,revenue,groups',
      '--out',
      out,
    ])
    assert.equal(exported.code, 0, exported.err)
    assert.equal((await cli(h.dir, ['project', 'create', 'copy', '--timezone', PROJECT.timezone])).code, 0)
    const imported = await cli(h.dir, ['import', '--project', 'copy', '--from-project', PROJECT.id, '--file', out])
    assert.equal(imported.code, 0, imported.err)
    const events = randomEvents(5, PROJECT)
    assert.match(imported.out, new RegExp(`^imported ${events.length} event\\(s\\), skipped 0 bad line\\(s\\)`, 'm'))
    const served = await startHarness({ dir: h.dir, env: { QUARRY_RATE_LIMIT: '1000000' } })
    try {
      const answer = async (project: string, route: string) => {
        const res = await request(served.app).get(`/insights/${project}/${route}`).set(auth)
        assert.equal(res.status, 200, res.text)
        return res.body as unknown
      }
      // Every event of the project: its days in UTC lie inside these Asia/Kolkata days.
      const window = 'startDate=2024-05-01&endDate=2024-05-07'
      for (const route of [`metrics?${window}`, `metrics?${window}&interval=hour`, `pages?${window}&limit=1000`]) {
        assert.deepEqual(await answer('copy', route), await answer(PROJECT.id, route), route)
      }
      const metrics = (await answer('copy', `metrics?${window}`)) as { metrics: { total_revenue: number } }
      const revenue = events.reduce((sum, event) => sum + Number((event as { revenue?: number }).revenue ?? 0), 0)
      assert.equal(metrics.metrics.total_revenue, revenue, 'revenue came through')
      const counts = await served.engine.client
        .query({ query: 'SELECT project_id, count() AS n FROM events GROUP BY project_id ORDER BY project_id', format: 'JSONEachRow' })
        .then((rs) => rs.json<{ project_id: string; n: number | string }>())
      assert.deepEqual(
        counts.map((row) => [row.project_id, Number(row.n)]),
        [
          ['copy', events.length],
          [PROJECT.id, events.length],
        ],
      )
    } finally {
      await served.engine.close()
    }
  })
})
