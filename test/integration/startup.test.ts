// `npm start` end to end: the first start on an empty data directory migrates, seeds the demo and
// prints credentials that work; SIGTERM lets an in-flight request finish; a restart reuses the data;
// a bad setting stops startup with a message naming it.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const ROOT = path.join(__dirname, '..', '..')
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs')

interface Started {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [TSX, path.join(ROOT, 'server', 'main.ts')], { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  return { child, output: () => output, exited }
}

async function waitFor(started: Started, pattern: RegExp, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!pattern.test(started.output())) {
    if (Date.now() > deadline || started.child.exitCode !== null) throw new Error(`never saw ${pattern}:\n${started.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('npm start', function () {
  this.timeout(300_000)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-start-'))
  const port = String(20_000 + Math.floor(Math.random() * 20_000))
  const env = { QUARRY_DATA_DIR: dir, PORT: port, QUARRY_DEMO_EVENTS: '20000', QUARRY_METRICS_PORT: '0' }
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('bootstraps the demo on an empty data directory and serves live to the printed credentials', async () => {
    const first = start(env)
    try {
      await waitFor(first, /Quarry listening on/)
      const credentials = JSON.parse(fs.readFileSync(path.join(dir, 'demo-credentials.json'), 'utf8'))
      assert.match(first.output(), new RegExp(credentials.clientSecret))
      assert.match(first.output(), /curl -s -H 'openpanel-client-id: /)
      const headers = { 'openpanel-client-id': credentials.clientId, 'openpanel-client-secret': credentials.clientSecret }
      const live = await fetch(`http://127.0.0.1:${port}/insights/demo/live`, { headers })
      assert.equal(live.status, 200)
      assert.ok(((await live.json()) as { visitors: number }).visitors > 0, 'the demo has visitors in the last five minutes')
      const inFlight = fetch(`http://127.0.0.1:${port}/insights/demo/pages?range=30d`, { headers })
      await new Promise((resolve) => setTimeout(resolve, 20))
      first.child.kill('SIGTERM')
      const answered = await inFlight
      assert.equal(answered.status, 200, 'the in-flight request finished')
      assert.equal(await first.exited, 0)
    } finally {
      first.child.kill('SIGKILL')
    }
  })

  it('reuses the data and the credentials on the next start', async () => {
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'demo-credentials.json'), 'utf8'))
    const second = start(env)
    try {
      await waitFor(second, /Quarry listening on/)
      assert.doesNotMatch(second.output(), /seeding/i)
      assert.match(second.output(), new RegExp(saved.clientId))
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0)
    } finally {
      second.child.kill('SIGKILL')
    }
  })

  it('stops on a bad setting with a message naming it', async () => {
    const bad = start({ ...env, PORT: 'eighty' })
    assert.equal(await bad.exited, 1)
    assert.match(bad.output(), /quarry: PORT: expected a whole number/)
  })
})
