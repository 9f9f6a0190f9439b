// What an import holds in memory and what it accepts: a line over 1 MiB is a bad line (never read whole),
// only the first 100 bad lines are listed (the rest counted), a line's problems are capped, and
// created_at must be a date the API can ask for.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createProject } from '../../server/admin/control'
import { importEvents } from '../../server/admin/importer'
import { runCliIn } from '../support/cli'
import { startHarness, type Harness } from '../support/harness'

/** The longest line an import reads. */
const MAX_LINE_BYTES = 1024 * 1024

const event = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: crypto.randomUUID(),
    name: 'screen_view',
    device_id: 'd1',
    session_id: 's1',
    created_at: '2024-03-01T10:00:00Z',
    ...fields,
  })

describe('import limits', function () {
  this.timeout(300_000)

  describe('in one process', () => {
    let h: Harness
    let dir: string
    const write = (lines: string[]) => {
      const file = path.join(dir, `${crypto.randomUUID()}.ndjson`)
      fs.writeFileSync(file, `${lines.join('\n')}\n`)
      return file
    }

    before(async () => {
      h = await startHarness()
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-import-limits-'))
      await createProject(h.engine, { id: 'shop' })
    })
    after(async () => {
      await h.close()
      fs.rmSync(dir, { recursive: true, force: true })
    })

    it('refuses a line longer than 1 MiB by its length, even a valid event, and imports the others with --skip-bad', async () => {
      const huge = event({ properties: { blob: 'x'.repeat(3 * MAX_LINE_BYTES) } })
      const file = write([event(), huge, event()])
      const refused = await importEvents(h.engine, { projectId: 'shop', file, skipBad: false })
      assert.deepEqual(refused, {
        imported: 0,
        duplicates: 0,
        resessioned: 0,
        rediscovered: 0,
        skipped: 0,
        badLines: 1,
        bad: [
          {
            line: 2,
            problems: [`the line is ${Buffer.byteLength(huge)} bytes, longer than the limit of 1048576 bytes (1 MiB) for one event`],
          },
        ],
      })
      const skipped = await importEvents(h.engine, { projectId: 'shop', file, skipBad: true })
      assert.deepEqual([skipped.imported, skipped.skipped, skipped.badLines], [2, 1, 1])
    })

    it('takes a line of exactly 1 MiB', async () => {
      const id = crypto.randomUUID()
      const unpadded = Buffer.byteLength(event({ id, properties: { pad: '' } }))
      const exact = event({ id, properties: { pad: 'y'.repeat(MAX_LINE_BYTES - unpadded) } })
      assert.equal(Buffer.byteLength(exact), MAX_LINE_BYTES)
      const report = await importEvents(h.engine, { projectId: 'shop', file: write([exact]), skipBad: false })
      assert.deepEqual([report.imported, report.badLines], [1, 0])
    })

    it('refuses created_at outside 1970-01-01 to 2199-12-31 UTC, the dates the API can ask for', async () => {
      const times = [
        '1969-12-31T23:59:59.999Z',
        '1970-01-01T00:00:00.000Z',
        '2199-12-31T23:59:59.999Z',
        '2200-01-01T00:00:00.000Z',
        '2199-12-31T20:00:00-05:00',
      ]
      const report = await importEvents(h.engine, {
        projectId: 'shop',
        file: write(times.map((created_at) => event({ created_at }))),
        skipBad: true,
      })
      assert.deepEqual(
        report.bad,
        [1, 4, 5].map((line) => ({
          line,
          problems: [`"created_at" ${times[line - 1]} is outside 1970-01-01 to 2199-12-31 (UTC), the dates the API can ask for`],
        })),
      )
      assert.deepEqual([report.imported, report.skipped], [2, 3])
    })

    it("lists a line's first 10 problems, each cut to 200 characters, and counts the rest", async () => {
      const unknown = Object.fromEntries(Array.from({ length: 30 }, (_, n) => [`f${n}_${'z'.repeat(300)}`, 'v']))
      const report = await importEvents(h.engine, { projectId: 'shop', file: write([event(unknown)]), skipBad: false })
      const [{ problems }] = report.bad
      assert.equal(problems.length, 11)
      assert.equal(problems[10], 'and 20 more problem(s)')
      for (const problem of problems.slice(0, 10)) {
        assert.match(problem, /^unknown field "f\d+_z+\.\.\.$/)
        assert.equal(problem.length, 203)
      }
    })
  })

  // The CLI opens the embedded engine on a directory of its own, once the harness above has closed.
  describe('through the CLI', () => {
    it('lists the first 100 bad lines, counts the others, and says so', async () => {
      const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-import-limits-cli-'))
      try {
        const file = path.join(cliDir, 'bad.ndjson')
        fs.writeFileSync(file, `${[event(), ...Array.from({ length: 250 }, (_, n) => `{not json ${n}`)].join('\n')}\n`)
        assert.equal((await runCliIn(cliDir, ['project', 'create', 'shop'])).code, 0)
        const refused = await runCliIn(cliDir, ['import', '--project', 'shop', '--file', file])
        assert.equal(refused.code, 1)
        const listed = refused.err.split('\n').filter((line) => /^line \d+: not JSON/.test(line))
        assert.deepEqual(
          listed.map((line) => Number(/^line (\d+)/.exec(line)?.[1])),
          Array.from({ length: 100 }, (_, n) => n + 2),
        )
        assert.match(refused.err, /^and 150 more bad line\(s\), not listed$/m)
        assert.match(refused.err, /250 bad line\(s\); nothing was imported/)
        const skipped = await runCliIn(cliDir, ['import', '--project', 'shop', '--file', file, '--skip-bad'])
        assert.equal(skipped.code, 0, skipped.err)
        assert.match(skipped.out, /imported 1 event\(s\), skipped 250 bad line\(s\)/)
      } finally {
        fs.rmSync(cliDir, { recursive: true, force: true })
      }
    })
  })
})
