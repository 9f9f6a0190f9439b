// Every Prometheus metric of the gateway, in one registry per app instance, behind a small typed API
// the app, auth, export and the statement runner report to. The listener that serves it is metrics-server.ts.
import type { RequestHandler, Response } from 'express'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { RunObserver } from '../../queries/run/runner'

export type AuthFailureReason = 'missing_credentials' | 'bad_credentials' | 'write_client'
const AUTH_FAILURE_REASONS: AuthFailureReason[] = ['missing_credentials', 'bad_credentials', 'write_client']

export interface Metrics {
  registry: Registry
  /** Counts and times every request by method, route pattern and status. Mount it first. */
  requestMiddleware: RequestHandler
  statementObserver: RunObserver
  /** Reports the engine scheduler's queue; the queue metrics exist only once a scheduler calls this. */
  trackQueue(depth: () => number, inFlight: () => number): void
  exportRows(count: number): void
  authFailure(reason: AuthFailureReason): void
  cacheLookup(hit: boolean): void
}

/** Seconds; requests and statements run from milliseconds up to the 15 s default time limit. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60]

/** The status of a request that ended before its answer was complete (as nginx logs a client's going away). */
const CLIENT_CLOSED = 499

/**
 * Why a request ended before its answer was complete: its client went away, the gateway cut an export
 * stream its client took nothing from for the idle time, or the gateway cut a stream that failed midway.
 */
export type CutReason = 'client_closed' | 'stream_idle' | 'stream_failed'

/** The status a request ended with once its response closed: its own, or 499 when the answer was incomplete. */
export function endedStatus(res: Response): number {
  return res.writableFinished ? res.statusCode : CLIENT_CLOSED
}
/** The route label of a request no route matched: raw URLs never become label values. */
const UNMATCHED = 'unmatched'

export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })

  const requests = new Counter({
    name: 'quarry_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  })
  const requestSeconds = new Histogram({
    name: 'quarry_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer being complete, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  })
  const statementSeconds = new Histogram({
    name: 'quarry_statement_duration_seconds',
    help: 'Time a ClickHouse statement took, by template and outcome',
    labelNames: ['template', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  })
  const readRows = new Counter({
    name: 'quarry_engine_read_rows_total',
    help: 'Rows the engine read, by template (only statements whose engine reports it: a ClickHouse server does, the embedded engine does not)',
    labelNames: ['template'],
    registers: [registry],
  })
  const readBytes = new Counter({
    name: 'quarry_engine_read_bytes_total',
    help: 'Bytes the engine read, by template (only statements whose engine reports it)',
    labelNames: ['template'],
    registers: [registry],
  })
  const overrun = new Histogram({
    name: 'quarry_statement_overrun_seconds',
    help: 'How long the engine went on with a statement given up while it ran (its deadline passed, its request went away), holding its turn, by template',
    labelNames: ['template'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  })
  const unstoppable = new Counter({
    name: 'quarry_engine_unstoppable_statements_total',
    help: 'Cancelled statements the engine lanes gave up stopping (embedded: every KILL tried missed them); /ready fails while one runs',
    registers: [registry],
  })
  const exportedRows = new Counter({
    name: 'quarry_export_rows_streamed_total',
    help: 'Rows written to NDJSON and CSV export streams',
    registers: [registry],
  })
  const authFailures = new Counter({
    name: 'quarry_auth_failures_total',
    help: 'Requests refused by authentication, by reason',
    labelNames: ['reason'],
    registers: [registry],
  })
  for (const reason of AUTH_FAILURE_REASONS) authFailures.inc({ reason }, 0)
  const cacheLookups = new Counter({
    name: 'quarry_cache_lookups_total',
    help: 'Result cache look-ups, by result (hit or miss)',
    labelNames: ['result'],
    registers: [registry],
  })

  let queueWait: Histogram<'template'> | undefined

  const requestMiddleware: RequestHandler = (req, res, next) => {
    const started = performance.now()
    res.once('close', () => {
      // TRICKY: Express sets req.route only when a route matched; its `path` is the pattern
      // (`/insights/:projectId/metrics`), so project ids and query strings never become labels.
      const route = typeof req.route?.path === 'string' ? req.route.path : UNMATCHED
      const labels = { method: req.method, route, status: String(endedStatus(res)) }
      requests.inc(labels)
      requestSeconds.observe(labels, (performance.now() - started) / 1000)
    })
    next()
  }

  return {
    registry,
    requestMiddleware,
    statementObserver: {
      statementFinished(event) {
        statementSeconds.observe({ template: event.template, outcome: event.outcome }, event.durationMs / 1000)
        queueWait?.observe({ template: event.template }, event.queueWaitMs / 1000)
        if (event.readRows !== undefined && Number.isFinite(event.readRows)) readRows.inc({ template: event.template }, event.readRows)
        if (event.readBytes !== undefined && Number.isFinite(event.readBytes)) readBytes.inc({ template: event.template }, event.readBytes)
      },
      statementStopped(statement) {
        overrun.observe({ template: statement.template }, statement.overrunMs / 1000)
      },
      statementUnstoppable() {
        unstoppable.inc()
      },
    },
    trackQueue(depth, inFlight) {
      queueWait = new Histogram({
        name: 'quarry_engine_queue_wait_seconds',
        help: 'Time a statement waited in the engine scheduler before it started, by template',
        labelNames: ['template'],
        buckets: DURATION_BUCKETS,
        registers: [registry],
      })
      new Gauge({
        name: 'quarry_engine_queue_depth',
        help: 'Statements waiting in the engine scheduler',
        registers: [registry],
        collect() {
          this.set(depth())
        },
      })
      new Gauge({
        name: 'quarry_engine_statements_in_flight',
        help: 'Statements the engine is running',
        registers: [registry],
        collect() {
          this.set(inFlight())
        },
      })
    },
    exportRows(count) {
      exportedRows.inc(count)
    },
    authFailure(reason) {
      authFailures.inc({ reason })
    },
    cacheLookup(hit) {
      cacheLookups.inc({ result: hit ? 'hit' : 'miss' })
    },
  }
}
