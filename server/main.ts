// Entry point: config -> engine -> migrations (embedded) or the schema check (server) -> demo bootstrap ->
// serving lanes, set -> compaction timer -> listen; SIGTERM drains and closes.
import type { Server } from 'node:http'
import { createApp } from './http/app'
import { ConfigError, loadConfig, type Config } from './config'
import { ensureDemo } from './admin/demo'
import { createBanner } from './http/banner'
import { Directory } from './http/directory'
import { Drain } from './http/drain'
import { EngineBusyError, createRunner, openEngine } from './engine'
import { createLogger } from './logger'
import { createMetrics, type Metrics } from './http/metrics'
import { startMetricsServer } from './http/metrics-server'
import { SchemaBehindError, prepareSchema } from './admin/migrate'
import { compactionOptions, scheduleCompaction } from './admin/compact'
import { checkQueries } from './http/startup-check'
import type { Runner } from '../queries/run/runner'

async function startMetrics(metrics: Metrics, listen: Config['metrics']) {
  try {
    return await startMetricsServer(metrics, listen)
  } catch (error) {
    throw new ConfigError(
      'QUARRY_METRICS_PORT',
      `cannot listen on ${listen.host}:${listen.port} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    )
  }
}

/**
 * Waits until the serving lanes answer a probe (which waits for their SETs), for at most `ms`: a probe gives
 * up after its own 2 s, which a loaded machine can outlast while the lanes are still being set.
 */
async function lanesAnswer(runner: Pick<Runner, 'ping'>, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms
  for (;;) {
    if (await runner.ping()) return true
    if (performance.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function main() {
  const config = loadConfig()
  const logger = createLogger(config.logLevel, false, config.logFormat)
  checkQueries()
  // At debug, each admin statement's template as it is sent: a crash at start names what was running.
  const engine = await openEngine(config.engine, { adminStatement: (name) => logger.debug('admin statement', { template: name }) })
  const applied = await prepareSchema(engine)
  if (applied.length) logger.info('migrations applied', { applied })
  const banner = createBanner({ format: config.logFormat })
  const demo = config.engine.mode === 'embedded' ? await ensureDemo(engine, config.demoEvents, banner.note) : undefined
  const metrics = createMetrics()
  const metricsServer = config.metrics.port ? await startMetrics(metrics, config.metrics) : undefined
  if (metricsServer) logger.info('metrics listening', { url: `http://${config.metrics.host}:${metricsServer.port}/metrics` })
  const runner = createRunner(engine, config, {
    statementFinished: (event) => metrics.statementObserver.statementFinished(event),
    statementStopped: (statement) => metrics.statementObserver.statementStopped?.(statement),
    statementUnstoppable: (statement) => {
      metrics.statementObserver.statementUnstoppable?.(statement)
      logger.error('a cancelled statement could not be stopped; /ready fails until it ends', { ...statement })
    },
  })
  metrics.trackQueue(
    () => runner.queueDepth(),
    () => runner.inFlight(),
  )
  // TRICKY: the serving lanes open their chDB connections on the data directory and set each one (guardrails,
  // readonly) in parallel; a probe waits for those. Only then does the compaction start writing on
  // the admin connection, so the lanes open with nothing else running on the engine, as they do everywhere
  // else (tests, CLI, bench). Their overlap was the one start-only overlap of engine calls, found while
  // chasing a crash at start (docs/design/cluster.md, "Embedded").
  const answers = await lanesAnswer(runner, config.maxExecutionSeconds * 1000)
  if (answers) logger.debug('start: serving lanes opened')
  else logger.warn('the serving lanes did not answer within the time limit; the compaction starts anyway, /ready says why')
  const compaction = scheduleCompaction(engine, {
    ...compactionOptions(config),
    everyMs: config.compactSeconds * 1000,
    onRun: (report) =>
      (report.days || report.dropped || report.deferred || report.leaseHeldBy) && logger.info('sessions compacted', { ...report }),
    onError: (error) => logger.error('session compaction failed', { error: String((error as Error)?.stack ?? error) }),
  })
  logger.debug('start: compaction scheduled')
  const drain = new Drain()
  const app = createApp({
    config,
    runner,
    directory: new Directory(runner, config.authCacheMs, { checksPerSecond: config.authChecksPerSecond }),
    logger,
    metrics,
    drain,
    demoProjectId: demo?.credentials.projectId,
  })
  const server: Server = app.listen(config.port, config.host, () => banner.listening({ host: config.host, port: config.port, demo }))

  // SIGTERM: /ready and new requests answer 503 at once (the listener stays open so probes see it), the
  // requests in flight get QUARRY_SHUTDOWN_GRACE_MS to finish, then every connection still open is cut.
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal, inFlight: drain.requestsInFlight })
    const drained = await drain.finish(config.shutdownGraceMs)
    if (!drained) {
      logger.warn('grace period over: cutting the requests still in flight', {
        inFlight: drain.requestsInFlight,
        graceMs: config.shutdownGraceMs,
      })
      server.closeAllConnections()
    }
    server.close(async () => {
      await compaction.stop()
      await metricsServer?.close()
      await engine.close()
      logger.info('stopped')
      process.exit(0)
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof EngineBusyError || error instanceof SchemaBehindError)
    console.error(`quarry: ${error.message}`)
  else console.error('quarry: failed to start:', error)
  process.exit(1)
})
