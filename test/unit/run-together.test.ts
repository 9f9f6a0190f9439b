import assert from 'node:assert/strict'
import { runTogether } from '../../queries/run/run-together'

/** A statement that settles only when its signal aborts, and says so. */
const untilAborted = (seen: { aborted: boolean }) => (signal: AbortSignal) =>
  new Promise<string>((_, reject) => {
    signal.addEventListener('abort', () => {
      seen.aborted = true
      reject(new Error('aborted'))
    })
  })

describe('runTogether', () => {
  it('aborts the sibling statements when one fails, and rejects with the failure', async () => {
    const seen = { aborted: false }
    await assert.rejects(
      runTogether(new AbortController().signal, [untilAborted(seen), async () => Promise.reject(new Error('row cap'))]),
      /row cap/,
    )
    assert.equal(seen.aborted, true)
  })

  it("passes the request's own abort on to every statement", async () => {
    const request = new AbortController()
    const seen = [{ aborted: false }, { aborted: false }]
    const running = runTogether(request.signal, [untilAborted(seen[0]), untilAborted(seen[1])])
    request.abort()
    await assert.rejects(running, /aborted/)
    assert.deepEqual(seen, [{ aborted: true }, { aborted: true }])
  })

  it('resolves every answer in order when all succeed', async () => {
    assert.deepEqual(await runTogether(new AbortController().signal, [async () => 1, async () => 'two']), [1, 'two'])
  })
})
