// `npm run cli -- export` writes the same bytes as `GET /export/events` streams, for NDJSON and CSV,
// over several blocks of the one streamed statement and for a window.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { runCliIn } from '../support/cli'
import { startWithEvents, type Harness } from '../support/harness'
import { request } from '../support/openapi-request'
import { randomEvents } from '../support/random-events'

const PROJECT = { id: 'file', timezone: 'Asia/Kolkata', from: new Date('2024-05-01T00:00:00Z'), days: 6, sessions: 7_000 }

const cli = runCliIn

describe('CLI export', function () {
  this.timeout(600_000)
  let h: Harness
  const cases = [
    { format: 'ndjson', args: [] as string[] },
    { format: 'csv', args: [] as string[] },
    { format: 'csv', args: ['--start', '2024-05-02', '--end', '2024-05-04'] },
  ]
  const bodies: string[] = []

  before(async () => {
    let auth: Record<string, string>
    ;({ h, auth } = await startWithEvents(PROJECT, randomEvents(5, PROJECT)))
    for (const { format, args } of cases) {
      const query = new URLSearchParams({ projectId: PROJECT.id, format, ...(args.length ? { start: args[1], end: args[3] } : {}) })
      const res = await request(h.app).get(`/export/events?${query}`).set(auth)
      assert.equal(res.status, 200)
      bodies.push(res.text)
    }
    assert.ok(bodies[0].split('\n').length > 20_001, 'several blocks')
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
})
