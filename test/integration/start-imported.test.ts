// `npm start` on a freshly imported data directory (projects imported in parts with the CLI, each import
// compacted), several times: each start reaches /ready, answers /metrics and stops cleanly on SIGTERM, and
// the start's compaction sends nothing before the serving lanes are open and set (their connections are
// opened and locked down with nothing else running on the engine, as everywhere else in the code).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { buildImportedDirectory } from '../support/imported-directory'
import { readMetrics, startGateway, stopGateway, waitReady } from '../support/gateway-process'

const STARTS = 3

/** The JSON log lines the gateway printed, in order. */
function logLines(output: string): { message: string; template?: string }[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { message: string; template?: string })
}

describe('npm start on a freshly imported directory', function () {
  this.timeout(180_000)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-start-imported-'))
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  before(async () => {
    await buildImportedDirectory(dir, {
      projects: 2,
      parts: 2,
      sessionsPerPart: 60,
      seed: 40,
      days: 2,
      from: new Date(Date.now() - 20 * 86_400_000),
    })
  })

  for (let start = 1; start <= STARTS; start += 1) {
    it(`start ${start} of ${STARTS}: ready, metrics, a clean stop, and no compaction statement before the lanes are open`, async () => {
      const gateway = await startGateway(dir, { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' })
      try {
        assert.ok(await waitReady(gateway, 120_000), `never ready:\n${gateway.output()}`)
        const metrics = await readMetrics(gateway)
        assert.match(metrics ?? '', /^# HELP /m, `no /metrics:\n${gateway.output()}`)
        assert.deepEqual(await stopGateway(gateway), { code: 0, signal: null }, gateway.output())
        const lines = logLines(gateway.output())
        const opened = lines.findIndex((line) => line.message === 'start: serving lanes opened')
        const firstCompaction = lines.findIndex((line) => line.message === 'admin statement' && line.template?.startsWith('admin.compact'))
        assert.ok(opened >= 0, `the lanes were never opened:\n${gateway.output()}`)
        assert.ok(
          firstCompaction > opened,
          `a compaction statement (${lines[firstCompaction]?.template}) was sent before the lanes were open and set`,
        )
      } finally {
        gateway.child.kill('SIGKILL')
      }
    })
  }
})
