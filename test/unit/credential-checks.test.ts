// The scrypt check limiter on its own: queue order, shares between tiers, and deadlines, on a clock the
// tests move (node:test's mock timers for the limiter's timers and Date).
import assert from 'node:assert/strict'
import { mock } from 'node:test'
import { CredentialChecks, type CheckTier } from '../../server/http/credential-checks'

/** Checks that run until the test opens them, in the order they started. */
function gatedChecks(options: { queued: number; suspectPerCaller?: number }) {
  const checks = new CredentialChecks({
    perSecond: 1_000,
    inFlight: 1,
    queued: options.queued,
    suspectPerCaller: options.suspectPerCaller ?? 4,
    suspectEvery: 4,
    maxWaitMs: 5_000,
    now: () => 0,
  })
  const started: string[] = []
  const gates: (() => void)[] = []
  const outcomes = new Map<string, string>()
  const ask = (tier: CheckTier, caller: string, name: string) =>
    checks
      .run(tier, caller, async () => {
        started.push(name)
        await new Promise<void>((resolve) => gates.push(resolve))
      })
      .then(
        () => outcomes.set(name, 'checked'),
        (error: Error) => outcomes.set(name, error.message),
      )
  const drain = async (asked: Promise<unknown>[]) => {
    while (gates.length || outcomes.size < asked.length) {
      gates.shift()?.()
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(asked)
  }
  return { ask, started, outcomes, drain }
}

describe('credential checks', () => {
  it('makes room in a full queue by pushing out the newest check of the address holding the most', async () => {
    const { ask, started, outcomes, drain } = gatedChecks({ queued: 3 })
    const asked = [ask('known', 'a', 'a0'), ask('known', 'a', 'a1'), ask('known', 'a', 'a2'), ask('known', 'a', 'a3')]
    asked.push(ask('known', 'b', 'b0'))
    asked.push(ask('known', 'a', 'a4'))
    asked.push(ask('suspect', 'c', 'c0'))
    asked.push(ask('known', 'd', 'd0'))
    await drain(asked)
    assert.match(String(outcomes.get('a3')), /holds most of it/, 'b0 pushed out the newest of a')
    assert.match(String(outcomes.get('a4')), /3 credential checks are waiting/, 'a already holds more than b')
    assert.match(String(outcomes.get('c0')), /3 credential checks are waiting/, 'a suspect check never pushes out a known one')
    assert.match(String(outcomes.get('a2')), /holds most of it/, 'd0 pushed out the newest of a again')
    assert.deepEqual(started, ['a0', 'a1', 'b0', 'd0'])
  })

  it('lets a known check push out a suspect one, never the other way round', async () => {
    const { ask, started, outcomes, drain } = gatedChecks({ queued: 3 })
    const asked = [ask('suspect', 'x', 'x0'), ask('suspect', 'x', 'x1'), ask('suspect', 'x', 'x2'), ask('suspect', 'y', 'y0')]
    asked.push(ask('known', 'z', 'z0'))
    asked.push(ask('suspect', 'w', 'w0'))
    await drain(asked)
    assert.match(String(outcomes.get('x2')), /holds most of it/)
    assert.match(String(outcomes.get('w0')), /3 credential checks are waiting/, 'x and y hold one each: no more than w would')
    assert.deepEqual(started, ['x0', 'z0', 'x1', 'y0'])
  })

  it('gives suspect checks one turn in four while known ones wait, callers taking turns within a tier', async () => {
    const { ask, started, drain } = gatedChecks({ queued: 100 })
    const asked = [0, 1, 2, 3, 4, 5].map((n) => ask('known', 'k1', `a${n}`))
    asked.push(...[0, 1, 2, 3, 4, 5].map((n) => ask('known', 'k2', `b${n}`)))
    asked.push(ask('suspect', 's', 's0'), ask('suspect', 's', 's1'))
    await drain(asked)
    assert.deepEqual(started, ['a0', 'a1', 'b0', 'a2', 's0', 'b1', 'a3', 'b2', 's1', 'a4', 'b3', 'a5', 'b4', 'b5'])
  })

  describe('on a clock the test moves', () => {
    beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'] }))
    afterEach(() => mock.timers.reset())

    /** Lets the promise callbacks of everything due run. */
    const settle = async () => {
      for (let n = 0; n < 20; n += 1) await new Promise((resolve) => setImmediate(resolve))
    }

    it('answers 429 to a check still waiting at its deadline, without ever running it', async () => {
      const checks = new CredentialChecks({
        perSecond: 1_000,
        inFlight: 1,
        queued: 1,
        suspectPerCaller: 4,
        suspectEvery: 4,
        maxWaitMs: 2_000,
      })
      const ran: string[] = []
      let open: () => void = () => {}
      const holding = checks.run(
        'known',
        'a',
        () =>
          new Promise<void>((resolve) => {
            open = resolve
            ran.push('holding')
          }),
      )
      const outcomes: string[] = []
      const late = checks
        .run('known', 'b', async () => void ran.push('late'))
        .then(
          () => outcomes.push('late checked'),
          (error: Error & { code?: string }) => outcomes.push(`${error.code}: ${error.message}`),
        )
      mock.timers.tick(1_999)
      await settle()
      assert.deepEqual(outcomes, [], 'still within its deadline')
      mock.timers.tick(1)
      await settle()
      assert.deepEqual(outcomes, ['too_many_queries: No credential check turn within 2 s; retry shortly'])
      const next = checks.run('known', 'c', async () => void ran.push('next'))
      open()
      await Promise.all([holding, late, next])
      assert.deepEqual(ran, ['holding', 'next'], 'the expired check never ran, and its place in the queue was freed')
    })

    it('starts a suspect check within a second while a flood of known checks keeps that tier full', async () => {
      // The issue's flood, scaled: 10 checks a second for the process, 2 at once; two addresses send 10
      // known checks a second each (each check taking 30 ms); a cold client's own check is suspect.
      const checks = new CredentialChecks({
        perSecond: 10,
        inFlight: 2,
        queued: 1_000,
        suspectPerCaller: 4,
        suspectEvery: 4,
        maxWaitMs: 5_000,
      })
      const check = () => new Promise<void>((resolve) => setTimeout(resolve, 30))
      const flood: Promise<unknown>[] = []
      let suspectStartedAt: number | undefined
      let suspect: Promise<unknown> | undefined
      for (let ms = 0; ms < 10_000; ms += 50) {
        flood.push(checks.run('known', ms % 100 ? 'b' : 'c', check).catch(() => undefined))
        if (ms === 2_000) suspect = checks.run('suspect', 'a', async () => void (suspectStartedAt = Date.now()))
        mock.timers.tick(50)
        await settle()
      }
      // The flood stops; what it left waiting is served or refused at its deadline.
      for (let ms = 0; ms < 30_000 && suspectStartedAt === undefined; ms += 50) {
        mock.timers.tick(50)
        await settle()
      }
      assert.ok(
        suspectStartedAt !== undefined && suspectStartedAt - 2_000 <= 1_000,
        `the suspect check started ${suspectStartedAt === undefined ? 'never' : `${suspectStartedAt - 2_000} ms after it asked`}`,
      )
      for (let ms = 0; ms < 10_000; ms += 50) {
        mock.timers.tick(50)
        await settle()
      }
      await Promise.all([...flood, suspect])
    })
  })
})
