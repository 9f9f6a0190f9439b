// Reports every statement of a Runner to a StatementObserver (template, duration, outcome, rows and
// bytes read), for a runner that does not report them itself.
import { QueryError } from '../queries/errors'
import type { Runner } from '../queries/run'
import type { StatementObserver, StatementOutcome } from './metrics'

function outcomeOf(error: unknown, signal: AbortSignal | undefined): StatementOutcome {
  if (signal?.aborted) return 'cancelled'
  return error instanceof QueryError && error.code === 'timeout' ? 'timeout' : 'error'
}

/**
 * The same runner, observed. `run` answers through `runText`, so wrapping `runText` sees every
 * statement once. This runner has no queue of its own, so queueWaitMs is 0 (a scheduler that queues
 * reports its real wait, and only then are the queue metrics registered: Metrics.trackQueue).
 */
export function observeStatements(runner: Runner, observer: StatementObserver): Runner {
  const observed = Object.create(runner) as Runner
  observed.runText = async (query, options = {}) => {
    const started = performance.now()
    try {
      const result = await runner.runText(query, options)
      observer.statementFinished({ template: query.template, durationMs: result.durationMs, queueWaitMs: 0, readRows: result.readRows, readBytes: result.readBytes, outcome: 'ok' })
      return result
    } catch (error) {
      observer.statementFinished({ template: query.template, durationMs: performance.now() - started, queueWaitMs: 0, outcome: outcomeOf(error, options.signal) })
      throw error
    }
  }
  return observed
}
