// Identical requests share one run, but never one that is already being cancelled (issue 31, item 21).
import assert from 'node:assert/strict'
import { SharedRuns } from '../../queries/run/shared-runs'

/** A run that settles only when told, and records the signal it was started with. */
function controlledRun() {
  const runs: { signal: AbortSignal; resolve: (value: string) => void; reject: (error: unknown) => void }[] = []
  const start = (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      runs.push({ signal, resolve, reject })
    })
  return { runs, start }
}

describe('shared runs', () => {
  it('lets identical askers share one run, cancelled only when every one has left', async () => {
    const shared = new SharedRuns<string>()
    const { runs, start } = controlledRun()
    const [first, second] = [new AbortController(), new AbortController()]
    const answers = [shared.run('k', first.signal, start), shared.run('k', second.signal, start)]
    assert.equal(runs.length, 1)
    first.abort()
    assert.equal(runs[0].signal.aborted, false, 'one asker is still waiting')
    runs[0].resolve('answer')
    assert.deepEqual(await Promise.all(answers), ['answer', 'answer'])
  })

  it('never joins a run that is being cancelled: a new asker starts its own, and later askers join that one', async () => {
    const shared = new SharedRuns<string>()
    const { runs, start } = controlledRun()
    const gone = new AbortController()
    const abandoned = shared.run('k', gone.signal, start)
    abandoned.catch(() => undefined)
    gone.abort()
    assert.equal(runs[0].signal.aborted, true, 'its last asker left: the run is being cancelled')
    const fresh = shared.run('k', new AbortController().signal, start)
    assert.equal(runs.length, 2, 'the new asker did not join the cancelled run')
    // The cancelled run ends only now (the engine stopped it); its end must not forget the new run.
    runs[0].reject(new Error('cancelled'))
    await assert.rejects(abandoned, /cancelled/)
    const joining = shared.run('k', new AbortController().signal, start)
    assert.equal(runs.length, 2, 'a later asker joins the new run')
    runs[1].resolve('fresh answer')
    assert.deepEqual(await Promise.all([fresh, joining]), ['fresh answer', 'fresh answer'])
  })
})
