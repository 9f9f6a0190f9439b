// `npm start` end to end: the first start on an empty data directory migrates, seeds the demo and
// prints credentials that work; SIGTERM lets an in-flight request finish, turns /ready to 503 at once and
// cuts a stalled stream after the grace period; a restart reuses the data without printing the secret;
// a bad setting stops startup with a message naming it.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'

const ROOT = path.join(__dirname, '..', '..')

interface Started {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

function start(env: Record<string, string>): Started {
  // TRICKY: tsx's own CLI relays a signal to its child and SIGKILLs it when the child is busy for 60 ms,
  // which would cut the drain short; loaded with --import, tsx leaves the signal to the gateway.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server', 'main.ts')], {
    env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
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

/** A GET on a connection of its own (no keep-alive socket the gateway may be closing), for the drain probes. */
function getOnce(port: string, urlPath: string, headers: Record<string, string> = {}): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, headers, agent: false }, (res) => {
        res.resume()
        res.once('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }))
      })
      .on('error', reject)
  })
}

/** `promise`, or a failure naming `what` once `ms` pass: a bound on a wait, not a timing check. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}

describe('npm start', function () {
  this.timeout(300_000)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-start-'))
  const port = String(20_000 + Math.floor(Math.random() * 20_000))
  const env = { QUARRY_DATA_DIR: dir, PORT: port, QUARRY_DEMO_EVENTS: '100000', QUARRY_METRICS_PORT: '0' }
  after(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('bootstraps the demo on an empty data directory and serves live to the printed credentials', async () => {
    // A grace period long enough for the whole in-flight export, however loaded the machine.
    const first = start({ ...env, QUARRY_SHUTDOWN_GRACE_MS: '300000' })
    try {
      await waitFor(first, /Quarry listening on/)
      const credentials = JSON.parse(fs.readFileSync(path.join(dir, 'demo-credentials.json'), 'utf8'))
      assert.match(first.output(), new RegExp(credentials.clientSecret))
      assert.match(first.output(), /curl -s -H 'openpanel-client-id: /)
      const headers = { 'openpanel-client-id': credentials.clientId, 'openpanel-client-secret': credentials.clientSecret }
      const live = await fetch(`http://127.0.0.1:${port}/insights/demo/live`, { headers })
      assert.equal(live.status, 200)
      assert.ok(((await live.json()) as { visitors: number }).visitors > 0, 'the demo has visitors in the last five minutes')
      // An export whose first bytes have arrived is surely in flight when the signal comes.
      const inFlight = await fetch(`http://127.0.0.1:${port}/export/events?projectId=demo&format=ndjson`, { headers })
      const reader = (inFlight.body as ReadableStream<Uint8Array>).getReader()
      let text = new TextDecoder().decode((await reader.read()).value)
      first.child.kill('SIGTERM')
      try {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value)
      } catch (error) {
        throw new Error(
          `the in-flight export broke off after ${text.length} bytes (${String(error)}); the gateway said:\n${first.output()}`,
        )
      }
      assert.equal(text.trim().split('\n').length, 100_000, 'the in-flight export finished')
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
      assert.match(second.output(), /the secret is in .*demo-credentials\.json/)
      assert.doesNotMatch(second.output(), new RegExp(saved.clientSecret), 'the secret is printed only when created')
      second.child.kill('SIGTERM')
      assert.equal(await second.exited, 0)
    } finally {
      second.child.kill('SIGKILL')
    }
  })

  it('on SIGTERM answers /ready with 503 at once, and cuts a stalled export after the grace period', async () => {
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'demo-credentials.json'), 'utf8'))
    const headers = { 'openpanel-client-id': saved.clientId, 'openpanel-client-secret': saved.clientSecret }
    // The grace period leaves room for the probes below on a loaded machine.
    const third = start({ ...env, QUARRY_SHUTDOWN_GRACE_MS: '8000' })
    try {
      await waitFor(third, /Quarry listening on/)
      // A client that reads nothing: the whole-project NDJSON export stalls on backpressure and stays in flight.
      const stalled = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/export/events?projectId=demo&format=ndjson', headers }, resolve).on('error', reject)
      })
      assert.equal(stalled.statusCode, 200)
      stalled.pause()
      const cut = new Promise<void>((resolve) => stalled.once('close', resolve))
      third.child.kill('SIGTERM')
      let ready = await getOnce(port, '/ready')
      for (let n = 0; n < 50 && ready.status === 200; n += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        ready = await getOnce(port, '/ready')
      }
      assert.equal(ready.status, 503, 'the signal turns /ready to 503')
      assert.equal(ready.retryAfter, '5')
      const refused = await getOnce(port, '/insights/demo/live', headers)
      assert.equal(refused.status, 503, 'new requests are refused while draining')
      assert.equal(await within(third.exited, 60_000, 'the gateway exits'), 0)
      stalled.resume()
      await within(cut, 10_000, 'the stalled stream is closed')
      assert.equal(stalled.complete, false, 'the stream was cut, not finished')
    } finally {
      third.child.kill('SIGKILL')
    }
  })

  it('stops on a bad setting with a message naming it', async () => {
    const bad = start({ ...env, PORT: 'eighty' })
    assert.equal(await bad.exited, 1)
    assert.match(bad.output(), /quarry: PORT: expected a whole number/)
  })
})
