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

  /** The run of `key` in flight, or `start` called now; settles for this asker, who leaves when `signal` aborts. */
  run(key: string, signal: AbortSignal, start: (signal: AbortSignal) => Promise<T>): Promise<T> {
    let run = this.running.get(key)
    if (!run) {
      const abort = new AbortController()
      const promise = start(abort.signal).finally(() => this.running.delete(key))
      run = { promise, waiters: 0, abort }
      this.running.set(key, run)
    }
    return joinShared(run, signal)
  }
}
