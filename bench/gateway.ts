// The gateway as a child process for every bench, bound to 127.0.0.1: `startGateway`
// spawns this file, which serves a data directory as server/main.ts does and also reports how long
// its event loop was kept from running. It also runs the bench's own statements (the raw engine's and
// the baseline's) on its engine when asked over the IPC channel, so that all three read the same files,
// compacts its directory when asked (as its schedule would, which the bench gateway does not run), and
// serves the HTTP floor: a bare `node:http` server that answers a statement's rows as the raw engine's runs
// read them, so that the bench can tell what HTTP alone costs from what the gateway's own work does.
import { spawn, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createApp } from '../server/http/app'
import { guardrailSettings } from '../queries/run/runner'
import { loadConfig } from '../server/config'
import { Directory } from '../server/http/directory'
import { createRunner, openEngine } from '../server/engine'
import { createLogger } from '../server/logger'
import { createMetrics } from '../server/http/metrics'
import { startMetricsServer } from '../server/http/metrics-server'
import { migrate } from '../server/admin/migrate'
import { compactSessions, compactionOptions, type CompactReport } from '../server/admin/compact'

const READY_LINE = 'bench gateway listening'
const LOOP_DELAY_LINE = 'bench gateway event loop delay '

/** How long the gateway's event loop was kept from running, over its life (ms). */
export interface LoopDelay {
  p50: number
  p99: number
  max: number
}

export interface ChildGateway {
  child: ChildProcess
  url: string
  /** Set when the gateway exited before `stop` was called: a crash. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined
  /**
   * Runs a statement on the gateway's own engine (its writable client, with the gateway's guardrail
   * settings), not through HTTP, and resolves with its rows once its whole result has been read.
   */
  statement(sql: string, params: Record<string, unknown>): Promise<Record<string, unknown>[]>
  /** Runs a statement without rows to read (a delete, DDL) on the gateway's writable client. */
  command(sql: string): Promise<void>
  /** Compacts the gateway's data directory as its schedule would, on its own engine; resolves with the report. */
  compact(): Promise<CompactReport>
  /** The statements the gateway's runner finished since the last call (or its start), oldest first. */
  takeStatements(): Promise<FinishedStatement[]>
  /**
   * The URL of the HTTP floor for a statement: a bare `node:http` server in the gateway's process, whose
   * every GET runs the statement as `statement` does and answers its rows as JSON. HTTP and nothing else:
   * no Express, authentication, validation, compilation, cache, scheduler or shaping.
   */
  floor(sql: string, params: Record<string, unknown>): Promise<string>
  /** Stops the gateway; resolves with its event-loop delay, when it could report it. */
  stop(): Promise<LoopDelay | undefined>
}

/**
 * A statement the gateway's runner finished, with its times on the gateway's clock (`performance.now()`, ms):
 * when it asked for its lane's turn, when it got it, and when it ended.
 */
export interface FinishedStatement {
  template: string
  clientId?: string
  lane: string
  outcome: string
  queuedAt: number
  admittedAt: number
  endedAt: number
  /** A statement given up while it ran: when the engine really stopped it (its turn lasted until then). */
  stoppedAt?: number
}

/** Finished statements a gateway keeps until the bench takes them; past it, the newest are not kept. */
const MAX_KEPT_STATEMENTS = 200_000

/**
 * A statement the bench asks the child to run (rows to read unless told), a compaction, or a statement the
 * HTTP floor is to serve (answered with its URL), and its answer.
 */
interface StatementRequest {
  id: number
  kind?: 'command' | 'compact' | 'floor' | 'statements'
  sql: string
  params: Record<string, unknown>
}
interface StatementReply {
  id: number
  rows?: Record<string, unknown>[]
  error?: string
}

/** A request the attack is meant to end (a timeout, a client gone, a full queue): logged, but not news. */
function isExpectedFailure(line: string): boolean {
  try {
    const entry = JSON.parse(line) as { message?: string; code?: string }
    return entry.message === 'request failed' && ['timeout', 'cancelled', 'overloaded'].includes(entry.code ?? '')
  } catch {
    return false
  }
}

/**
 * Spawns the gateway on `dataDir` (already migrated and closed by the caller) and waits until it listens; `root`
 * names another checkout of the project whose own bench gateway serves instead (an earlier commit, to time
 * before against after in one run).
 */
export async function startGateway(options: {
  dataDir: string
  port: number
  env?: Record<string, string>
  root?: string
}): Promise<ChildGateway> {
  const root = options.root ?? path.join(__dirname, '..')
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'gateway.ts')], {
    cwd: root,
    env: {
      ...process.env,
      LOG_LEVEL: 'error',
      QUARRY_METRICS_PORT: '0',
      ...options.env,
      QUARRY_DATA_DIR: options.dataDir,
      PORT: String(options.port),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line && !isExpectedFailure(line)) process.stderr.write(`${line}\n`)
  })
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  let stopping = false
  const exitedNow = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!stopping) exit = { code, signal }
      resolve()
    }),
  )
  // The gateway never outlives the bench, however the bench ends.
  const kill = () => child.kill('SIGKILL')
  process.once('exit', kill)
  let output = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes(READY_LINE)) resolve()
    })
    void exitedNow.then(() => reject(new Error(`gateway exited with ${JSON.stringify(exit)}`)))
  })
  const pending = new Map<number, { resolve(rows: Record<string, unknown>[]): void; reject(error: Error): void }>()
  let nextId = 0
  child.on('message', (reply: StatementReply) => {
    const waiting = pending.get(reply.id)
    pending.delete(reply.id)
    if (reply.error === undefined) waiting?.resolve(reply.rows ?? [])
    else waiting?.reject(new Error(reply.error))
  })
  // A gateway that exits never answers: its statements fail rather than keep the bench waiting.
  void exitedNow.then(() => {
    for (const waiting of pending.values()) waiting.reject(new Error(`gateway exited with ${JSON.stringify(exit)} during a statement`))
    pending.clear()
  })
  const ask = (request: Omit<StatementRequest, 'id'>) => {
    if (!child.connected) return Promise.reject(new Error(`gateway exited with ${JSON.stringify(exit)}: no statement can run`))
    const id = (nextId += 1)
    return new Promise<Record<string, unknown>[]>((resolve, reject) => {
      pending.set(id, { resolve, reject })
      child.send({ ...request, id } satisfies StatementRequest)
    })
  }
  return {
    child,
    url: `http://127.0.0.1:${options.port}`,
    exited: () => exit,
    statement: (sql, params) => ask({ sql, params }),
    command: (sql) => ask({ kind: 'command', sql, params: {} }).then(() => undefined),
    compact: () => ask({ kind: 'compact', sql: '', params: {} }).then(([report]) => report as unknown as CompactReport),
    takeStatements: () => ask({ kind: 'statements', sql: '', params: {} }).then((rows) => rows as unknown as FinishedStatement[]),
    floor: (sql, params) => ask({ kind: 'floor', sql, params }).then(([served]) => String(served.url)),
    async stop() {
      stopping = exit === undefined
      child.kill('SIGTERM')
      await exitedNow
      process.removeListener('exit', kill)
      const line = output.split('\n').find((text) => text.startsWith(LOOP_DELAY_LINE))
      return line ? (JSON.parse(line.slice(LOOP_DELAY_LINE.length)) as LoopDelay) : undefined
    },
  }
}

async function serve(): Promise<void> {
  const config = loadConfig()
  const engine = await openEngine(config.engine)
  await migrate(engine)
  // Prometheus as the gateway serves it, when the bench asks for it (QUARRY_METRICS_PORT; off with 0).
  const metrics = config.metrics.port ? createMetrics() : undefined
  let finished: FinishedStatement[] = []
  const keep = (statement: FinishedStatement) => {
    if (finished.length < MAX_KEPT_STATEMENTS) finished.push(statement)
  }
  const runner = createRunner(engine, config, {
    statementFinished(event) {
      metrics?.statementObserver.statementFinished(event)
      const endedAt = performance.now()
      const admittedAt = endedAt - event.durationMs
      keep({
        template: event.template,
        clientId: event.clientId,
        lane: event.lane,
        outcome: event.outcome,
        queuedAt: admittedAt - event.queueWaitMs,
        admittedAt,
        endedAt,
      })
    },
    statementStopped(statement) {
      metrics?.statementObserver.statementStopped?.(statement)
      const stoppedAt = performance.now()
      const admittedAt = stoppedAt - statement.ranMs
      keep({
        template: statement.template,
        clientId: statement.clientId,
        lane: statement.lane,
        outcome: 'stopped',
        queuedAt: admittedAt,
        admittedAt,
        endedAt: stoppedAt - statement.overrunMs,
        stoppedAt,
      })
    },
    statementUnstoppable: (statement) => metrics?.statementObserver.statementUnstoppable?.(statement),
  })
  metrics?.trackQueue(
    () => runner.queueDepth(),
    () => runner.inFlight(),
  )
  const metricsServer = metrics && (await startMetricsServer(metrics, config.metrics))
  const app = createApp({
    config,
    runner,
    metrics,
    directory: new Directory(runner, config.authCacheMs, { checksPerSecond: config.authChecksPerSecond }),
    logger: createLogger(config.logLevel, false, config.logFormat),
  })
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  const settings = guardrailSettings(config)
  const floorStatements: StatementRequest[] = []
  const floor = http.createServer((req, res) => {
    const request = floorStatements[Number(req.url?.slice('/statement/'.length))]
    if (!request) {
      res.writeHead(404).end()
      return
    }
    answer(request).then(
      (rows) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(rows)),
      (error: Error) => res.writeHead(500).end(error.message),
    )
  })
  const floorListening = new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve))
  const answer = async (request: StatementRequest): Promise<Record<string, unknown>[]> => {
    if (request.kind === 'floor') {
      await floorListening
      const { port } = floor.address() as { port: number }
      return [{ url: `http://127.0.0.1:${port}/statement/${floorStatements.push({ ...request, kind: undefined }) - 1}` }]
    }
    if (request.kind === 'compact')
      return compactSessions(engine, { ...compactionOptions(config), now: new Date() }).then((report) => [{ ...report }])
    if (request.kind === 'statements') {
      const taken = finished
      finished = []
      return taken as unknown as Record<string, unknown>[]
    }
    if (request.kind === 'command') return engine.client.command({ query: request.sql }).then(() => [])
    return engine.client
      .query({ query: request.sql, query_params: request.params, format: 'JSONEachRow', clickhouse_settings: settings })
      .then((result) => result.json<Record<string, unknown>>())
  }
  process.on('message', (request: StatementRequest) => {
    answer(request).then(
      (rows) => process.send?.({ id: request.id, rows } satisfies StatementReply),
      (error: Error) => process.send?.({ id: request.id, error: error.message } satisfies StatementReply),
    )
  })
  const server = app.listen(config.port, '127.0.0.1', () => console.log(READY_LINE))
  process.once('SIGTERM', () => {
    const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e6)
    console.log(`${LOOP_DELAY_LINE}${JSON.stringify({ p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) })}`)
    server.closeAllConnections()
    floor.closeAllConnections()
    floor.close()
    void metricsServer?.close()
    server.close(() => void engine.close().then(() => process.exit(0)))
  })
}

if (require.main === module) void serve()
