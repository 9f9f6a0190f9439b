// Issue 40's flood against a real gateway on 127.0.0.1: a cold client whose pair someone pushed past its
// failure limit must still get its 200 while two other addresses keep the live ids' checks busy, and
// every request of the flood gets an answer (401 or 429), none left waiting.
import assert from 'node:assert/strict'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApiClient, createProject } from '../../server/admin/control'
import { startHarness, type Harness } from '../support/harness'

/** The flood's pace per address, and the longest it runs. */
const FLOOD_EVERY_MS = 100
const FLOOD_MAX_MS = 10_000
/** How long the cold client's request may take before the test calls it unanswered. */
const VALID_TIMEOUT_MS = 8_000

describe('authentication under a flood of wrong secrets', function () {
  this.timeout(120_000)
  let h: Harness
  let server: Server
  let base: string

  before(async () => {
    // 20 failures per pair and window; the scrypt budget at its default (10 a second); the clients are
    // read once, before the flood, so the flood's requests cost the engine nothing.
    h = await startHarness({
      env: { QUARRY_RATE_LIMIT: '20', QUARRY_RATE_WINDOW_MS: '600000', QUARRY_TRUST_PROXY: 'loopback', QUARRY_AUTH_CACHE_MS: '600000' },
    })
    await createProject(h.engine, { id: 'shop' })
    server = await new Promise((resolve) => {
      const listening = h.app.listen(0, '127.0.0.1', () => resolve(listening))
    })
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await h.close()
  })

  const ask = (from: string, id: string, secret: string, timeoutMs = 15_000) =>
    fetch(`${base}/insights/shop/live`, {
      headers: { 'X-Forwarded-For': from, 'openpanel-client-id': id, 'openpanel-client-secret': secret },
      signal: AbortSignal.timeout(timeoutMs),
    })

  it("answers a cold client's valid request with 200 while live ids' checks are flooded from two other addresses", async () => {
    const victim = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    const decoys = await Promise.all(Array.from({ length: 8 }, () => createApiClient(h.engine, { type: 'read', projectId: 'shop' })))

    // Someone at the victim's address fails its id 20 times (each a different secret): the pair is past its limit.
    for (let n = 0; n < 20; n += 1) assert.equal((await ask('198.51.100.1', victim.id, `sec_guess_${n}`)).status, 401)
    const limited = await ask('198.51.100.1', victim.id, 'sec_guess_20')
    assert.equal(limited.status, 429)

    // Two other addresses send 10 wrong secrets a second each, over the 8 live decoy ids in turn: 10 per
    // pair over the flood, under the limit, so all of it is checked in the live ids' tier.
    const flood: Promise<{ status: number | string; ms: number }>[] = []
    const started = performance.now()
    let answered: { status: number | string; ms: number } | undefined
    const valid = new Promise<void>((resolve) => {
      setTimeout(() => {
        const sent = performance.now()
        ask('198.51.100.1', victim.id, victim.secret, VALID_TIMEOUT_MS)
          .then(
            (res) => (answered = { status: res.status, ms: performance.now() - sent }),
            (error: Error) => (answered = { status: error.name, ms: performance.now() - sent }),
          )
          .finally(resolve)
      }, 1_000)
    })
    for (let n = 0; answered === undefined && performance.now() - started < FLOOD_MAX_MS; n += 1) {
      for (const from of ['198.51.100.2', '198.51.100.3']) {
        const sent = performance.now()
        flood.push(
          ask(from, decoys[n % decoys.length].id, `sec_flood_${from}_${n}`).then(
            (res) => ({ status: res.status, ms: performance.now() - sent }),
            (error: Error) => ({ status: error.name, ms: performance.now() - sent }),
          ),
        )
      }
      await new Promise((resolve) => setTimeout(resolve, FLOOD_EVERY_MS))
    }
    await valid
    const outcomes = await Promise.all(flood)
    assert.deepEqual(
      answered && { status: answered.status },
      { status: 200 },
      `the valid request: ${JSON.stringify(answered)}, flood of ${outcomes.length}`,
    )
    assert.ok(answered && answered.ms < 3_000, `the valid request took ${Math.round(answered?.ms ?? Infinity)} ms`)
    const statuses = [...new Set(outcomes.map((outcome) => outcome.status))].sort()
    assert.ok(
      statuses.every((status) => status === 401 || status === 429),
      `every flood request was answered: ${statuses.join(', ')}`,
    )
    assert.ok(Math.max(...outcomes.map((outcome) => outcome.ms)) < 7_000, 'none waited much past the 5 s deadline')
  })
})
