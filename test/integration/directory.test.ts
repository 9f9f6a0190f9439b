import assert from 'node:assert/strict'
import { createApiClient, createProject, revokeApiClient } from '../../server/admin/control'
import { Directory } from '../../server/http/directory'
import { verifySecret } from '../../server/secrets'
import { startHarness, type Harness } from '../support/harness'

describe('the directory of clients and projects', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
    await createProject(h.engine, { id: 'shop' })
  })
  after(() => h.close())

  /** A directory on a clock the test moves, counting the scrypt checks it makes. */
  function directoryAt(cacheMs: number, maxVerified?: number) {
    const clock = { now: 0, checks: [] as string[] }
    const directory = new Directory(h.runner, cacheMs, {
      now: () => clock.now,
      maxVerified,
      verify: (secret, stored) => {
        clock.checks.push(stored)
        return verifySecret(secret, stored)
      },
    })
    return { directory, clock }
  }

  it('refuses a revoked client once its copy is QUARRY_AUTH_CACHE_MS old, not before', async () => {
    const { directory, clock } = directoryAt(5_000)
    const client = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    assert.equal((await directory.authenticate(client.id, client.secret))?.id, client.id)
    await revokeApiClient(h.engine, client.id)
    clock.now = 1_000
    assert.equal((await directory.authenticate(client.id, client.secret))?.id, client.id, 'served from the copy')
    clock.now = 5_000
    assert.equal(await directory.authenticate(client.id, client.secret), null)
  })

  it('checks the secret of an unknown or revoked id against a hash too, the same work as a known one', async () => {
    const { directory, clock } = directoryAt(5_000)
    const known = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    const revoked = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    await revokeApiClient(h.engine, revoked.id)
    assert.equal(await directory.authenticate(known.id, 'sec_wrong'), null)
    assert.equal(await directory.authenticate('00000000-0000-4000-8000-000000000000', 'sec_wrong'), null)
    assert.equal(await directory.authenticate(revoked.id, revoked.secret), null)
    assert.equal(clock.checks.length, 3, 'one scrypt check each')
    assert.ok(clock.checks.every((stored) => stored.startsWith('scrypt$')))
    assert.notEqual(clock.checks[1], clock.checks[0], 'the unknown id was checked against the dummy hash')
  })

  it('keeps verified secrets in a bounded LRU, evicting the least recently used', async () => {
    const { directory, clock } = directoryAt(5_000, 2)
    const clients = await Promise.all([1, 2, 3].map(() => createApiClient(h.engine, { type: 'read', projectId: 'shop' })))
    for (const client of clients) assert.ok(await directory.authenticate(client.id, client.secret))
    assert.equal(clock.checks.length, 3)
    assert.ok(await directory.authenticate(clients[2].id, clients[2].secret))
    assert.equal(clock.checks.length, 3, 'the most recent is cached')
    assert.ok(await directory.authenticate(clients[0].id, clients[0].secret))
    assert.equal(clock.checks.length, 4, 'the oldest was evicted, not the whole cache cleared')
  })

  it('gives each address its turn at the scrypt checks and refuses one address past 4 at once', async () => {
    const started: string[] = []
    const gates: (() => void)[] = []
    const directory = new Directory(h.runner, 5_000, {
      verify: async (secret, stored) => {
        started.push(secret)
        await new Promise<void>((resolve) => gates.push(resolve))
        return verifySecret(secret, stored)
      },
    })
    const valid = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    const unknownId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
    const attempts = Array.from({ length: 6 }, (_, n) =>
      directory.authenticate(unknownId(n), `sec_guess_${n}`, { caller: 'attacker', suspect: false }).then(
        (client) => client,
        (error: Error) => error,
      ),
    )
    while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    for (const outcome of await Promise.all(attempts.slice(4)))
      assert.match(String((outcome as Error).message), /At most 4 credential checks at once from one address/)
    const other = directory.authenticate(valid.id, valid.secret, { caller: 'other', suspect: false })
    await new Promise((resolve) => setTimeout(resolve, 20))
    assert.equal(started.length, 2, 'both turns are taken by the attacker')
    gates.shift()?.()
    while (started.length < 3) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.equal(started[2], valid.secret, `the other address goes before the attacker's waiting checks: ${started.join(' ')}`)
    while (started.length < 5 || gates.length) {
      gates.shift()?.()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    assert.equal((await other)?.id, valid.id)
    assert.deepEqual(await Promise.all(attempts.slice(0, 4)), [null, null, null, null])
  })

  it('keeps wrong secrets apart from verified ones, and checks an unknown id once whatever secrets it brings', async () => {
    const { directory, clock } = directoryAt(5_000, 2)
    const clients = await Promise.all([1, 2].map(() => createApiClient(h.engine, { type: 'read', projectId: 'shop' })))
    for (const client of clients) assert.ok(await directory.authenticate(client.id, client.secret))
    for (let n = 0; n < 5; n += 1) assert.equal(await directory.authenticate(clients[0].id, `sec_wrong_${n}`), null)
    const unknown = '00000000-0000-4000-8000-00000000beef'
    for (let n = 0; n < 5; n += 1) assert.equal(await directory.authenticate(unknown, `sec_guess_${n}`), null)
    assert.equal(clock.checks.length, 2 + 5 + 1, 'five wrong secrets of a live id, one check of the unknown id')
    for (const client of clients) assert.equal((await directory.authenticate(client.id, client.secret))?.id, client.id)
    assert.equal(clock.checks.length, 8, 'the failures pushed no verified secret out')
    assert.equal(await directory.authenticate(clients[0].id, 'sec_wrong_0'), null)
    assert.equal(clock.checks.length, 8, 'a wrong secret tried again is answered from its own cache')
  })

  it("checks a live id's secret before those of unknown ids and of pairs past their failure limit", async () => {
    const started: string[] = []
    const gates: (() => void)[] = []
    const directory = new Directory(h.runner, 5_000, {
      verify: async (secret, stored) => {
        started.push(secret)
        await new Promise<void>((resolve) => gates.push(resolve))
        return verifySecret(secret, stored)
      },
    })
    const valid = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    const unknownId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
    const running = [
      directory.authenticate(unknownId(1), 'sec_a', { caller: 'a', suspect: false }),
      directory.authenticate(unknownId(2), 'sec_b', { caller: 'b', suspect: false }),
    ]
    while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    const waiting = [
      directory.authenticate(unknownId(3), 'sec_c', { caller: 'c', suspect: false }),
      directory.authenticate(valid.id, 'sec_limited', { caller: 'd', suspect: true }),
      directory.authenticate(valid.id, valid.secret, { caller: 'a', suspect: false }),
    ]
    await new Promise((resolve) => setTimeout(resolve, 20))
    while (started.length < 5) {
      gates.shift()?.()
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    for (const open of gates.splice(0)) open()
    assert.deepEqual(started.slice(0, 3), ['sec_a', 'sec_b', valid.secret], 'the live id went before the suspect checks waiting')
    assert.deepEqual(started.slice(3).sort(), ['sec_c', 'sec_limited'])
    assert.deepEqual(await Promise.all(running), [null, null])
    const [unknown, limited, client] = await Promise.all(waiting)
    assert.deepEqual([unknown, limited, client?.id], [null, null, valid.id])
  })

  it('starts at most QUARRY_AUTH_CHECKS_PER_SECOND scrypt checks per second, the rest waiting their turn', async () => {
    const clock = { now: 0, checks: 0 }
    const directory = new Directory(h.runner, 60_000, {
      now: () => clock.now,
      checksPerSecond: 3,
      verify: (secret, stored) => {
        clock.checks += 1
        return verifySecret(secret, stored)
      },
    })
    const valid = await createApiClient(h.engine, { type: 'read', projectId: 'shop' })
    const settled: number[] = []
    const attempts = Array.from({ length: 5 }, (_, n) =>
      directory.authenticate(valid.id, `sec_guess_${n}`, { caller: `address-${n}`, suspect: false }).finally(() => settled.push(n)),
    )
    await Promise.all(attempts.slice(0, 3))
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(clock.checks, 3, 'the budget of a second is spent')
    assert.deepEqual([...settled].sort(), [0, 1, 2])
    clock.now += 1_000
    assert.deepEqual(await Promise.all(attempts.slice(3)), [null, null])
    assert.equal(clock.checks, 5)
  })

  it('sees a new project once its copy is refreshed', async () => {
    const { directory, clock } = directoryAt(5_000)
    assert.equal(await directory.project('later'), null)
    await createProject(h.engine, { id: 'later', timezone: 'Europe/Berlin' })
    clock.now = 5_000
    assert.deepEqual(await directory.project('later'), { id: 'later', name: 'later', timezone: 'Europe/Berlin' })
  })
})
