// Identical work asked for at once runs once: the askers of a key share one run, which is aborted only
// when every one of them has gone away.

/** A run some askers share. */
export interface Shared<T> {
  promise: Promise<T>
  waiters: number
  abort: AbortController
}

/** `shared`'s outcome for one more asker, who leaves when `signal` aborts; the last to leave aborts the run. */
export function joinShared<T>(shared: Shared<T>, signal: AbortSignal): Promise<T> {
  shared.waiters += 1
  const leave = () => {
    shared.waiters -= 1
    if (shared.waiters === 0) shared.abort.abort()
  }
  if (signal.aborted) leave()
  else signal.addEventListener('abort', leave, { once: true })
  return shared.promise.finally(() => signal.removeEventListener('abort', leave))
}

export class SharedRuns<T> {
  private readonly running = new Map<string, Shared<T>>()

  /**
   * The run of `key` in flight, or `start` called now; settles for this asker, who leaves when `signal`
   * aborts. A run whose askers all left is being cancelled: it is never joined, a new one starts beside it.
   */
  run(key: string, signal: AbortSignal, start: (signal: AbortSignal) => Promise<T>): Promise<T> {
    let run = this.running.get(key)
    if (!run || run.abort.signal.aborted) {
      const abort = new AbortController()
      const started: Shared<T> = { promise: start(abort.signal), waiters: 0, abort }
      started.promise = started.promise.finally(() => {
        if (this.running.get(key) === started) this.running.delete(key)
      })
      run = started
      this.running.set(key, run)
    }
    return joinShared(run, signal)
  }
}
