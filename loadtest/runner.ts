// The one load runner of the kit and of the bench: autocannon drives the connections, and every answer is
// also filed under its route (an HdrHistogram per route), with its status, bytes and, for exports, rows.
import autocannon from 'autocannon'
import * as hdr from 'hdr-histogram-js'

/** One request a connection sends: the route it is reported under, and what to send. */
export interface RequestSpec {
  route: string
  /** Path and query string. */
  path: string
  headers?: Record<string, string>
  /** Rows in a 200 answer's body (export pages and streams), for rows per second. */
  countRows?: (body: string) => number
  /** What a scenario needs to continue from this request (a page walk's window and depth); never sent. */
  state?: Record<string, string | number>
}

/** What a connection heard back for its previous request (a keyset walk reads its cursor). */
export interface Answer {
  spec: RequestSpec
  status: number
  body: string
}

/** Draws the requests of one connection, each after the previous one's answer. */
export type Connection = (previous: Answer | undefined) => RequestSpec

export interface LoadOptions {
  /** The gateway's base URL (`http://127.0.0.1:3000`). */
  url: string
  connections: number
  /** Stops after this many seconds... */
  durationSeconds?: number
  /** ... or after this many answers, whichever comes first. */
  amount?: number
  /** Requests per second over all connections (autocannon's `overallRate`); closed loop without it. */
  rate?: number
  /** Headers sent with every request (credentials); a request's own headers add to them. */
  headers?: Record<string, string>
  /** A request unanswered for this long is dropped and counted as a timeout (autocannon's `timeout`). */
  timeoutSeconds?: number
  /** A new connection's request source. */
  connection(): Connection
  /** Hears every answer as it comes (the bench splits answers by phase). */
  onAnswer?(sample: Sample): void
  /** Called about once a second while it runs, with the figures so far. */
  onTick?(progress: Progress): void
}

/**
 * One answer: when its request was built (ms since the run began; it is sent then, or after the pause a
 * `rate` asks for), how long it took from sending to its last byte, and its status.
 */
export interface Sample {
  route: string
  status: number
  ms: number
  at: number
}

export interface Percentiles {
  p50: number
  p90: number
  p95: number
  p99: number
  p99_9: number
  max: number
  mean: number
}

export interface RouteStats {
  /** Answers, timeouts and connection errors. */
  requests: number
  /** Answers per second. */
  rps: number
  /** Milliseconds, from the route's HdrHistogram (autocannon's own for `overall`). */
  latency: Percentiles
  /** Answers by HTTP status, plus `timeout` and `error` (connection) for requests that got none. */
  statuses: Record<string, number>
  /** Answers that were not 2xx, plus timeouts and connection errors. */
  errors: number
  bytes: number
  rows?: number
  rowsPerSecond?: number
}

export interface LoadResult {
  startedAt: string
  seconds: number
  connections: number
  rate?: number
  overall: RouteStats
  routes: Record<string, RouteStats>
}

export interface Progress {
  seconds: number
  overall: { requests: number; errors: number }
  routes: Record<string, RouteStats>
}

export interface RunningLoad {
  /** Stops it early; `done` then resolves with what was measured. */
  stop(): void
  done: Promise<LoadResult>
}

hdr.initWebAssemblySync()

/** The histogram autocannon records latencies in (lib/histUtil.js), so routes and overall read alike. */
const newHistogram = () =>
  hdr.build({
    useWebAssembly: true,
    bitBucketSize: 64,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 10000,
    numberOfSignificantValueDigits: 5,
  })
type Histogram = ReturnType<typeof newHistogram>

interface RouteTally {
  histogram: Histogram
  statuses: Record<string, number>
  bytes: number
  rows: number
  counted: boolean
}

function percentilesOf(histogram: Histogram): Percentiles {
  const at = (p: number) => (histogram.totalCount ? histogram.getValueAtPercentile(p) : 0)
  return {
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p99_9: at(99.9),
    max: histogram.totalCount ? histogram.maxValue : 0,
    mean: histogram.totalCount ? histogram.mean : 0,
  }
}

const isError = (status: string) => !/^2\d\d$/.test(status)
const errorsIn = (statuses: Record<string, number>) =>
  Object.entries(statuses).reduce((total, [status, count]) => total + (isError(status) ? count : 0), 0)

function statsOf(tally: RouteTally, seconds: number): RouteStats {
  const requests = Object.values(tally.statuses).reduce((total, count) => total + count, 0)
  const unanswered = (tally.statuses.timeout ?? 0) + (tally.statuses.error ?? 0)
  return {
    requests,
    rps: (requests - unanswered) / seconds,
    latency: percentilesOf(tally.histogram),
    statuses: { ...tally.statuses },
    errors: errorsIn(tally.statuses),
    bytes: tally.bytes,
    ...(tally.counted ? { rows: tally.rows, rowsPerSecond: tally.rows / seconds } : {}),
  }
}

/** Starts a load against `options.url`; it ends by itself at the duration or the request count. */
export function startLoad(options: LoadOptions): RunningLoad {
  if (!options.durationSeconds && !options.amount) throw new Error('a load needs a duration or a request count, so that it stops by itself')
  const tallies = new Map<string, RouteTally>()
  const tallyOf = (route: string) => {
    let tally = tallies.get(route)
    if (!tally) tallies.set(route, (tally = { histogram: newHistogram(), statuses: {}, bytes: 0, rows: 0, counted: false }))
    return tally
  }
  const statsByRoute = (seconds: number) =>
    Object.fromEntries([...tallies].sort(([a], [b]) => a.localeCompare(b)).map(([route, tally]) => [route, statsOf(tally, seconds)]))
  /** Every answer's latency again, for the one percentile autocannon does not compute (p95). */
  const overallHistogram = newHistogram()
  const started = performance.now()
  const file = (route: string, status: string, ms?: number) => {
    const tally = tallyOf(route)
    tally.statuses[status] = (tally.statuses[status] ?? 0) + 1
    if (ms === undefined) return
    tally.histogram.recordValue(ms)
    overallHistogram.recordValue(ms)
  }

  const setupClient = (client: autocannon.Client) => {
    const next = options.connection()
    let current: RequestSpec | undefined
    let previous: Answer | undefined
    let sentAt = 0
    client.setRequests([
      {
        setupRequest: (request) => {
          current = next(previous)
          sentAt = performance.now() - started
          return { ...request, method: 'GET', path: current.path, headers: { ...options.headers, ...current.headers } }
        },
        onResponse: (status, body) => {
          if (!current) return
          previous = { spec: current, status, body }
          if (current.countRows && status === 200) {
            const tally = tallyOf(current.route)
            tally.counted = true
            tally.rows += current.countRows(body)
          }
        },
      },
    ])
    // TRICKY: with one request in flight per connection (no pipelining), the request autocannon just
    // answered is the last one `setupRequest` built: the next is built only after these events.
    client.on('response', (status: number, bytes: number, ms: number) => {
      if (!current) return
      file(current.route, String(status), ms)
      tallyOf(current.route).bytes += bytes
      options.onAnswer?.({ route: current.route, status, ms, at: sentAt })
    })
    const events = client as unknown as NodeJS.EventEmitter
    events.on('timeout', () => current && file(current.route, 'timeout'))
    events.on('connError', () => current && file(current.route, 'error'))
  }

  const finish = (result: autocannon.Result): LoadResult => {
    const seconds = Math.max((result.finish.getTime() - result.start.getTime()) / 1000, 0.001)
    const statuses: Record<string, number> = {}
    for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = count ?? 0
    if (result.timeouts) statuses.timeout = result.timeouts
    if (result.errors - result.timeouts) statuses.error = result.errors - result.timeouts
    const answered = Object.entries(statuses).reduce(
      (total, [status, count]) => total + (status === 'timeout' || status === 'error' ? 0 : count),
      0,
    )
    const routes = statsByRoute(seconds)
    const rows = Object.values(routes).filter((route) => route.rows !== undefined)
    const { latency } = result
    return {
      startedAt: result.start.toISOString(),
      seconds,
      connections: options.connections,
      ...(options.rate ? { rate: options.rate } : {}),
      overall: {
        requests: answered + (statuses.timeout ?? 0) + (statuses.error ?? 0),
        rps: answered / seconds,
        latency: {
          p50: latency.p50,
          p90: latency.p90,
          p95: percentilesOf(overallHistogram).p95,
          p99: latency.p99,
          p99_9: latency.p99_9,
          max: latency.max,
          mean: latency.mean,
        },
        statuses,
        errors: errorsIn(statuses),
        bytes: result.throughput.total,
        ...(rows.length
          ? {
              rows: rows.reduce((n, route) => n + (route.rows ?? 0), 0),
              rowsPerSecond: rows.reduce((n, route) => n + (route.rows ?? 0), 0) / seconds,
            }
          : {}),
      },
      routes,
    }
  }

  const ticker = options.onTick
    ? setInterval(() => {
        const seconds = (performance.now() - started) / 1000
        const routes = statsByRoute(seconds)
        const all = Object.values(routes)
        options.onTick?.({
          seconds,
          overall: { requests: all.reduce((n, r) => n + r.requests, 0), errors: all.reduce((n, r) => n + r.errors, 0) },
          routes,
        })
      }, 1000)
    : undefined

  let settle: { resolve(result: LoadResult): void; reject(error: unknown): void } | undefined
  const done = new Promise<LoadResult>((resolve, reject) => (settle = { resolve, reject }))
  const settings: autocannon.Options = {
    url: options.url,
    // autocannon refuses more connections than requests.
    connections: options.amount ? Math.min(options.connections, options.amount) : options.connections,
    // TRICKY: autocannon reads a key set to undefined as a value (and refuses it): only defined ones go in.
    ...(options.durationSeconds ? { duration: options.durationSeconds } : {}),
    ...(options.amount ? { amount: options.amount } : {}),
    ...(options.rate ? { overallRate: options.rate } : {}),
    // One sample per answer, also at a set rate: the routes' histograms and autocannon's overall one then
    // count the same answers (autocannon refuses the option without a rate, where it is the default).
    ...(options.rate ? { ignoreCoordinatedOmission: true } : {}),
    timeout: options.timeoutSeconds ?? 30,
    setupClient,
  }
  const instance = autocannon(settings, (error, result: autocannon.Result) => {
    if (ticker) clearInterval(ticker)
    clearTimeout(deadline)
    if (error) settle?.reject(error)
    else settle?.resolve(finish(result))
    // The histograms live in WebAssembly memory, which the garbage collector does not free.
    for (const tally of tallies.values()) tally.histogram.destroy()
    overallHistogram.destroy()
  })

  // TRICKY: autocannon ignores its duration when given an amount; the duration still bounds the run here.
  const deadline = options.amount && options.durationSeconds ? setTimeout(() => instance.stop(), options.durationSeconds * 1000) : undefined
  return { stop: () => instance.stop(), done }
}

/** Runs a load to its end. */
export const runLoad = (options: LoadOptions): Promise<LoadResult> => startLoad(options).done
