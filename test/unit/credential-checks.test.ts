import assert from 'node:assert/strict'
import { CredentialChecks, type CheckTier } from '../../server/http/credential-checks'

/** Checks that run until the test opens them, in the order they started. */
function gatedChecks(options: { queued: number }) {
  const checks = new CredentialChecks({ perSecond: 1_000, inFlight: 1, queued: options.queued, suspectPerCaller: 4, now: () => 0 })
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
})
