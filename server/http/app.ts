// The Express app factory (no listen): ops endpoints, then every route of the routes table behind
// drain -> auth -> rate limit -> concurrency cap -> project authorization -> the run stage's one entry
// (queries/run/answer.ts), whose answer it writes: a JSON body, or a stream chunk by chunk. POST /mcp asks the
// same routes as MCP tools (server/mcp/), each call through the same guards.
import crypto from 'node:crypto'
import { once } from 'node:events'
import express, { type Request, type Response } from 'express'
import type { Store } from 'express-rate-limit'
import { Answers, type StreamAnswer } from '../../queries/run/answer'
import { QueryError } from '../../queries/core/errors'
import { etagOf, matchesEtag } from '../../queries/run/result-cache'
import type { Runner } from '../../queries/run/runner'
import { authenticate, authorizeProject, resolveQueryProject } from './auth'
import { BATCH_PATH, batchHandlers } from './batch'
import type { Config } from '../config'
import type { ApiClient, Directory } from './directory'
import { docsRouter } from './docs'
import { Drain } from './drain'
import { createErrorHandler, errorAnswer, errorBody, notFoundHandler } from './error-handler'
import { nextPageLink, nextPageParams } from './next-page'
import { FailedAttempts } from './failed-attempts'
import { PerClientSlots, clientRateLimit, concurrencyCap } from './limits'
import { MCP_PATH, mcpHandlers, mcpMethodNotAllowed } from '../mcp/mcp-route'
import type { Logger } from '../logger'
import { endedStatus, type CutReason, type Metrics } from './metrics'
import { buildOpenApi } from './openapi'
import { ReadinessProbe } from './readiness'
import { parametersOf, QUERY_PARSER, ROUTES, type Route } from '../routes/routes'

export interface AppOptions {
  config: Pick<
    Config,
    | 'rateLimit'
    | 'maxConcurrentQueries'
    | 'sessionLookbackHours'
    | 'trustProxy'
    | 'cache'
    | 'maxExecutionSeconds'
    | 'maxResultRows'
    | 'streamIdleSeconds'
    | 'maxStreamsPerClient'
  > & { engine: Pick<Config['engine'], 'cluster'> }
  runner: Runner
  directory: Directory
  logger: Logger
  clock?: () => Date
  rateLimitStore?: Store
  /** Where requests, auth failures and exported rows are counted (none when absent). */
  metrics?: Metrics
  /** Shutdown state: `/ready` and new requests answer 503 once it drains (server/main.ts on SIGTERM). */
  drain?: Drain
  /** What `/ready` asks (one over `runner` by default). */
  readiness?: ReadinessProbe
  /** The demo project, when the gateway has one: /openapi.json's `projectId` examples name it. */
  demoProjectId?: string
}

export function createApp(options: AppOptions): express.Express {
  const { runner, directory, logger, config, metrics } = options
  const clock = options.clock ?? (() => new Date())
  const drain = options.drain ?? new Drain()
  const readiness = options.readiness ?? new ReadinessProbe(runner)
  const answers = new Answers(runner, {
    cluster: config.engine.cluster,
    cache: config.cache,
    maxExecutionSeconds: config.maxExecutionSeconds,
    maxResultRows: config.maxResultRows,
  })
  const app = express()
  app.disable('x-powered-by')
  app.set('query parser', QUERY_PARSER)
  if (metrics) app.use(metrics.requestMiddleware)
  app.set('trust proxy', config.trustProxy)

  app.use((req, res, next) => {
    const requestId = crypto.randomUUID()
    const started = performance.now()
    res.locals.requestId = requestId
    res.set('X-Request-Id', requestId)
    // A client that goes away before its answer is complete cancels the request's queries.
    const abort = new AbortController()
    res.locals.signal = abort.signal
    res.once('close', () => {
      if (!res.writableFinished) abort.abort()
    })
    // One line per request, on whichever comes first: `finish` (the answer is complete) or `close` (the
    // connection ended before it was: 499, as Prometheus counts it, with why).
    let logged = false
    const log = () => {
      if (logged) return
      logged = true
      const cut: CutReason | undefined = res.writableFinished ? undefined : (res.locals.cut ?? 'client_closed')
      logger.info('request', {
        requestId,
        method: req.method,
        path: req.path,
        status: endedStatus(res),
        cut,
        clientId: res.locals.client?.id,
        project: res.locals.projectId,
        template: res.locals.template,
        questions: res.locals.questions,
        durationMs: Math.round(performance.now() - started),
        queryMs: res.locals.queryMs,
        readRows: res.locals.readRows,
        readBytes: res.locals.readBytes,
      })
    }
    res.once('finish', log)
    res.once('close', log)
    next()
  })

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/ready', async (_req, res) => {
    if (drain.isDraining) {
      res
        .set('Retry-After', '5')
        .status(503)
        .json(errorBody({ status: 503, message: 'The gateway is shutting down', requestId: res.locals.requestId }))
      return
    }
    const state = await readiness.check()
    if (state.ready) {
      res.json({ status: 'ready' })
      return
    }
    res
      .set('Retry-After', '5')
      .status(503)
      .json(errorBody({ status: 503, message: state.reason, requestId: res.locals.requestId }))
  })
  const openApi = buildOpenApi(ROUTES, { demoProjectId: options.demoProjectId })
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi)
  })
  app.get('/docs', (req, res, next) => (req.originalUrl.split('?')[0] === '/docs' ? res.redirect(301, 'docs/') : next()))
  app.use('/docs', docsRouter())

  app.use(drain.track)
  const authenticated = authenticate({
    directory,
    failures: new FailedAttempts({ limit: config.rateLimit.requests, windowMs: config.rateLimit.windowMs }),
    onFailure: metrics?.authFailure,
  })
  const rateLimiter = clientRateLimit({ ...config.rateLimit, store: options.rateLimitStore })
  const admitted = [authenticated, rateLimiter]
  const querySlots = new PerClientSlots(config.maxConcurrentQueries)
  const guards = [...admitted, concurrencyCap(config.maxConcurrentQueries, querySlots)]
  const streamSlots = new PerClientSlots(config.maxStreamsPerClient)
  for (const route of ROUTES) {
    app.get(route.path, ...guards, (req: Request, res: Response) => serve(route, req, res))
  }
  app.post(
    BATCH_PATH,
    ...admitted,
    ...batchHandlers({
      routes: ROUTES,
      answers,
      directory,
      slots: querySlots,
      maxConcurrentQueries: config.maxConcurrentQueries,
      sessionLookbackMs: config.sessionLookbackHours * 3_600_000,
      clock,
      logger,
    }),
  )

  // The MCP tools: each call takes its own token and query slot, as the GET of the route it mirrors would.
  app.post(
    MCP_PATH,
    authenticated,
    ...mcpHandlers({
      routes: ROUTES,
      answers,
      rateLimiter,
      takeSlot: (clientId, holder) => querySlots.take(clientId, holder),
      maxConcurrentQueries: config.maxConcurrentQueries,
      authorizeProject: (client, query) => resolveQueryProject(directory, client, query),
      errorBody: (error, { requestId, tool }) =>
        errorAnswer(error, requestId, (fields) => logger.error('mcp tool call failed', { requestId, tool, ...fields })).body,
      sessionLookbackMs: config.sessionLookbackHours * 3_600_000,
      clock,
    }),
  )
  app.all(MCP_PATH, mcpMethodNotAllowed)

  async function serve({ resource, projectFrom = 'path' }: Route, req: Request, res: Response) {
    const askedAt = performance.now()
    const project =
      projectFrom === 'path'
        ? await authorizeProject(directory, res.locals.client, String(req.params.projectId))
        : await resolveQueryProject(directory, res.locals.client, req.query as Record<string, unknown>)
    res.locals.projectId = project.id
    const answered = await answers.answer(resource, {
      raw: parametersOf(req.query as Record<string, unknown>, req.params),
      scope: { project, now: clock(), sessionLookbackMs: config.sessionLookbackHours * 3_600_000 },
      clientId: res.locals.client.id,
      signal: res.locals.signal,
      askedAt,
      revalidate: /\bno-(cache|store)\b/i.test(req.get('cache-control') ?? ''),
      report: (facts) => Object.assign(res.locals, facts),
    })
    if (answered.kind === 'stream') return sendStream(answered, res)
    const next = nextPageParams(answered, req.query as Record<string, unknown>)
    if (next) res.set('Link', nextPageLink(req, next))
    if (!answered.cache) {
      res.json(answered.body)
      return
    }
    const { cache } = answered
    metrics?.cacheLookup(cache.hit)
    const text = JSON.stringify(answered.body)
    const etag = etagOf(text)
    const age = Math.max(0, Math.floor((Date.now() - cache.storedAt) / 1000))
    res.set({
      'Cache-Control': `private, max-age=${Math.max(0, cache.maxAgeSeconds - age)}`,
      Age: String(age),
      'X-Cache': cache.hit ? 'hit' : 'miss',
      ETag: etag,
    })
    if (matchesEtag(req.get('if-none-match'), etag)) {
      res.status(304).end()
      return
    }
    res.type('json').send(text)
  }

  /**
   * Writes a stream chunk by chunk with backpressure, a bounded number per client. A client that goes away
   * while the response is full ends the wait; the stream then stops on the request's signal. One that stays
   * but takes nothing for the idle time is cut, which aborts the signal the same way: it would otherwise
   * hold a stream session (and its turn between blocks) for as long as it likes.
   */
  async function sendStream(answered: StreamAnswer, res: Response) {
    const client = res.locals.client as ApiClient
    if (!streamSlots.take(client.id, res)) {
      throw new QueryError('too_many_queries', `At most ${config.maxStreamsPerClient} export streams at once per client`)
    }
    const signal = res.locals.signal as AbortSignal
    res.status(200)
    res.set('Content-Type', answered.head.contentType)
    res.set('Content-Disposition', `attachment; filename="${answered.head.fileName}"`)
    const write = async (piece: string | Uint8Array) => {
      if (res.write(piece)) return
      const idle = AbortSignal.timeout(config.streamIdleSeconds * 1000)
      await once(res, 'drain', { signal: AbortSignal.any([signal, idle]) }).catch(() => {
        if (!idle.aborted) return
        res.locals.cut = 'stream_idle' satisfies CutReason
        res.destroy()
      })
    }
    let counted = 0
    const onProgress = (rows: number) => {
      metrics?.exportRows(rows - counted)
      counted = rows
    }
    res.locals.readRows = await answered.writeTo({ write, onProgress })
    res.end()
  }

  app.use(notFoundHandler)
  app.use(createErrorHandler(logger))
  return app
}
