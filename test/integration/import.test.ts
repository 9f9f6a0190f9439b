// Import writes every good line or none, and a rerun of the same file never duplicates: interrupted
// and killed imports are rerun, and events and the sessions built from them stay exact (the gateway's
// metrics against the reference model over the file's events).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { request } from '../support/openapi-request'
import { runCli } from '../../server/admin/cli'
import { createProject } from '../../server/admin/control'
import { loadConfig } from '../../server/config'
import { openEngine, type Engine } from '../../server/engine'
import { importEvents } from '../../server/admin/importer'
import { compactionOptions, compactSessions } from '../../server/admin/compact'
import { answerInsights, type RawEvent } from '../reference/model'
import { rootHeaders, startHarness, type Harness } from '../support/harness'
import { randomEvents } from '../support/random-events'

const ROOT = path.join(__dirname, '..', '..')
const FROM = new Date('2024-03-01T00:00:00Z')
const QUERY = { startDate: '2024-02-28', endDate: '2024-03-20', interval: 'day' }

function writeFile(dir: string, events: RawEvent[]): string {
  const file = path.join(dir, 'events.ndjson')
  fs.writeFileSync(file, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`)
  return file
}

async function stored(engine: Engine, projectId: string): Promise<{ events: number; ids: number; stages: number }> {
  const [row] = await engine.client
    .query({
      query: `SELECT count() AS events, uniqExact(id) AS ids,
                (SELECT count() FROM system.tables WHERE database = currentDatabase() AND name LIKE 'import_stage_%') AS stages
              FROM events WHERE project_id = {projectId:String}`,
      query_params: { projectId },
      format: 'JSONEachRow',
    })
    .then((rs) => rs.json<{ events: number | string; ids: number | string; stages: number | string }>())
  return { events: Number(row.events), ids: Number(row.ids), stages: Number(row.stages) }
}

/** The gateway's metrics (sessions, views, bounces, per day) must equal the model's over the file. */
async function assertMetricsExact(h: Harness, projectId: string, events: RawEvent[]): Promise<void> {
  const expected = answerInsights({
    events,
    projectTimezone: 'UTC',
    resource: 'metrics',
    query: QUERY,
    now: new Date('2024-04-01T00:00:00Z'),
  })
  const res = await request(h.app)
    .get(`/insights/${projectId}/metrics?${new URLSearchParams(QUERY)}`)
    .set(await rootHeaders(h.engine))
  assert.equal(res.status, 200, JSON.stringify(res.body))
  assert.deepEqual(res.body, expected.body)
  assert.ok((expected.body as { metrics: { total_sessions: number } }).metrics.total_sessions > 100)
}

async function cli(dir: string, ...argv: string[]): Promise<{ code: number; out: string }> {
  const saved = { log: console.log, env: process.env.QUARRY_DATA_DIR }
  let out = ''
  console.log = (...parts: unknown[]) => void (out += `${parts.join(' ')}\n`)
  process.env.QUARRY_DATA_DIR = dir
  try {
    return { code: await runCli(argv), out }
  } finally {
    console.log = saved.log
    if (saved.env === undefined) delete process.env.QUARRY_DATA_DIR
    else process.env.QUARRY_DATA_DIR = saved.env
  }
}

describe('import: all or nothing, never twice', function () {
  this.timeout(600_000)

  describe('in one process', () => {
    let h: Harness
    const events = randomEvents(7, { sessions: 400, from: FROM, days: 14 })
    let file: string
    before(async () => {
      h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
      file = writeFile(h.dir, events)
      await createProject(h.engine, { id: 'shop' })
    })
    after(() => h.close())

    it('writes nothing when the import stops after some batches were staged, and leaves no staging table', async () => {
      let calls = 0
      const interrupted = importEvents(h.engine, {
        projectId: 'shop',
        file,
        skipBad: false,
        batchRows: 100,
        onProgress: (lines) => {
          calls += 1
          if (calls === 4) throw new Error(`interrupted at line ${lines}`)
        },
      })
      await assert.rejects(interrupted, /interrupted at line 300/)
      assert.deepEqual(await stored(h.engine, 'shop'), { events: 0, ids: 0, stages: 0 })
    })

    it('then writes every event once, with exact sessions', async () => {
      const report = await importEvents(h.engine, { projectId: 'shop', file, skipBad: false, batchRows: 100 })
      assert.deepEqual(report, {
        imported: events.length,
        duplicates: 0,
        resessioned: 0,
        rediscovered: 0,
        skipped: 0,
        badLines: 0,
        bad: [],
      })
      assert.deepEqual(await stored(h.engine, 'shop'), { events: events.length, ids: events.length, stages: 0 })
      await assertMetricsExact(h, 'shop', events)
    })

    it('writes nothing again when the same file is rerun', async () => {
      const report = await importEvents(h.engine, { projectId: 'shop', file, skipBad: false })
      assert.deepEqual(report, {
        imported: 0,
        duplicates: events.length,
        resessioned: 0,
        rediscovered: 0,
        skipped: 0,
        badLines: 0,
        bad: [],
      })
      assert.deepEqual(await stored(h.engine, 'shop'), { events: events.length, ids: events.length, stages: 0 })
      await assertMetricsExact(h, 'shop', events)
    })

    it('writes only the missing events of a file whose first part was imported, and an id repeated in the file once', async () => {
      await createProject(h.engine, { id: 'blog' })
      const half = events.slice(0, Math.floor(events.length / 2))
      const first = await importEvents(h.engine, { projectId: 'blog', file: writeFile(h.dir, half), skipBad: false })
      assert.equal(first.imported, half.length)
      const report = await importEvents(h.engine, { projectId: 'blog', file: writeFile(h.dir, [...events, events[0]]), skipBad: false })
      assert.deepEqual(report, {
        imported: events.length - half.length,
        duplicates: half.length + 1,
        resessioned: 0,
        rediscovered: 0,
        skipped: 0,
        badLines: 0,
        bad: [],
      })
      assert.deepEqual(await stored(h.engine, 'blog'), { events: events.length, ids: events.length, stages: 0 })
      await assertMetricsExact(h, 'blog', events)
    })
  })

  it('rebuilds the partial rows of sessions whose events an earlier run stored without them, as the view wrote them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-import-resession-'))
    const events = randomEvents(12, { sessions: 600, from: FROM, days: 14 })
    const file = writeFile(dir, events)
    assert.equal((await cli(dir, 'project', 'create', 'shop')).code, 0)
    assert.equal((await cli(dir, 'import', '--project', 'shop', '--file', file)).code, 0)
    // One insert block: one partial row per session, as sessions_mv wrote it. Then the rows of every
    // third session go, as when a kill lands between the commit of the events and that of their rows.
    const rows = `SELECT * FROM sessions WHERE project_id = 'shop' ORDER BY session_id, started_at`
    const engine = await openEngine(loadConfig({ QUARRY_DATA_DIR: dir }).engine)
    let written: unknown[]
    try {
      written = await engine.client.query({ query: rows, format: 'JSONEachRow' }).then((rs) => rs.json())
      await engine.client.command({
        query: `ALTER TABLE sessions DELETE WHERE project_id = 'shop' AND cityHash64(session_id) % 3 = 0 SETTINGS mutations_sync = 2`,
      })
    } finally {
      await engine.close()
    }
    const lost = new Set(events.map((event) => event.session_id)).size - (written as unknown[]).length
    assert.equal(lost, 0, 'one row per session')
    const rerun = await cli(dir, 'import', '--project', 'shop', '--file', file)
    assert.equal(rerun.code, 0)
    const broken = Number(/rebuilt the partial rows of (\d+) session\(s\)/.exec(rerun.out)?.[1])
    assert.ok(broken > 100, rerun.out)
    assert.match(rerun.out, new RegExp(`imported 0 event\\(s\\), skipped 0 bad line\\(s\\), ${events.length} already imported`))
    // Nothing left to rebuild: a third run finds every session's rows whole.
    const third = await cli(dir, 'import', '--project', 'shop', '--file', file)
    assert.equal(third.code, 0)
    assert.doesNotMatch(third.out, /rebuilt/)
    const h = await startHarness({ dir, env: { QUARRY_RATE_LIMIT: '1000000' } })
    try {
      assert.deepEqual(await h.engine.client.query({ query: rows, format: 'JSONEachRow' }).then((rs) => rs.json()), written)
      await assertMetricsExact(h, 'shop', events)
    } finally {
      await h.close()
    }
  })

  it("invalidates the compaction of a day whose session a rerun rebuilds, though the rows' count is as before", async () => {
    const h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' }, now: new Date('2024-04-01T00:00:00Z') })
    try {
      await createProject(h.engine, { id: 'shop' })
      const events = randomEvents(13, { sessions: 300, from: FROM, days: 14 })
      // A session of several events: its first is in the first file, the others come with the second.
      const bySession = new Map<string, RawEvent[]>()
      for (const event of events) bySession.set(event.session_id, [...(bySession.get(event.session_id) ?? []), event])
      const [sessionId, own] = [...bySession].find(([, list]) => list.length >= 3) as [string, RawEvent[]]
      const first = [...own].sort((a, b) => a.created_at.localeCompare(b.created_at))[0]
      const firstFile = events.filter((event) => event.session_id !== sessionId || event === first)
      assert.equal(
        (await importEvents(h.engine, { projectId: 'shop', file: writeFile(h.dir, firstFile), skipBad: false })).imported,
        firstFile.length,
      )
      const compacted = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date('2024-04-01T00:00:00Z') })
      assert.ok(compacted.days > 0, JSON.stringify(compacted))
      await assertMetricsExact(h, 'shop', firstFile)
      // The second file's events stored without their partial rows, as when a kill lands between the two commits.
      const file = writeFile(h.dir, events)
      assert.equal((await importEvents(h.engine, { projectId: 'shop', file, skipBad: false })).imported, events.length - firstFile.length)
      await h.engine.client.command({
        query:
          'ALTER TABLE sessions DELETE WHERE project_id = {projectId:String} AND session_id = {sessionId:String} AND started_at > {first:DateTime64(3)} SETTINGS mutations_sync = 2',
        query_params: { projectId: 'shop', sessionId, first: first.created_at.replace('T', ' ').replace('Z', '') },
      })
      const rerun = await importEvents(h.engine, { projectId: 'shop', file, skipBad: false })
      assert.deepEqual(rerun, { imported: 0, duplicates: events.length, resessioned: 1, rediscovered: 0, skipped: 0, badLines: 0, bad: [] })
      h.newApp()
      await assertMetricsExact(h, 'shop', events)
      const again = await compactSessions(h.engine, { ...compactionOptions(h.config), now: new Date('2024-04-01T00:00:00Z') })
      assert.ok(again.days > 0, 'the invalidated days are compacted again')
      h.newApp()
      await assertMetricsExact(h, 'shop', events)
    } finally {
      await h.close()
    }
  })

  it('leaves all or nothing when the process is killed mid-import; the rerun writes every event once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-import-kill-'))
    const events = randomEvents(11, { sessions: 3000, from: FROM, days: 14 })
    const file = writeFile(dir, events)
    assert.equal((await cli(dir, 'project', 'create', 'shop')).code, 0)
    // One process (node --import tsx), so that SIGKILL kills the engine itself.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'server', 'admin', 'cli.ts'), 'import', '--project', 'shop', '--file', file],
      {
        cwd: ROOT,
        env: { ...process.env, QUARRY_DATA_DIR: dir },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)))
    // Killed one second after its first progress line, while it stages (or, on a fast machine, moves).
    child.stderr.once('data', () => setTimeout(() => child.kill('SIGKILL'), 1_000))
    const killedBy = await exited
    const engine = await openEngine(loadConfig({ QUARRY_DATA_DIR: dir }).engine)
    const afterKill = await stored(engine, 'shop').finally(() => engine.close())
    assert.ok(
      afterKill.events === 0 || afterKill.events === events.length,
      `after ${killedBy ?? 'exit'}: ${afterKill.events} of ${events.length} events`,
    )
    const rerun = await cli(dir, 'import', '--project', 'shop', '--file', file)
    assert.equal(rerun.code, 0)
    assert.match(
      rerun.out,
      new RegExp(
        `imported ${events.length - afterKill.events} event\\(s\\), skipped 0 bad line\\(s\\), ${afterKill.events} already imported`,
      ),
    )
    const h = await startHarness({ dir, env: { QUARRY_RATE_LIMIT: '1000000' } })
    try {
      assert.deepEqual(await stored(h.engine, 'shop'), { events: events.length, ids: events.length, stages: 0 })
      await assertMetricsExact(h, 'shop', events)
    } finally {
      await h.close()
    }
  })
})
