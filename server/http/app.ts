// The Express app factory (no listen): ops endpoints, then every route of the routes table behind
// drain -> auth -> rate limit -> concurrency cap -> project authorization -> the query pipeline.
import crypto from 'node:crypto'
import express, { type Request, type Response } from 'express'
import type { Store } from 'express-rate-limit'
import { Answers } from '../../queries/run/answer'
import { etagOf, matchesEtag } from '../../queries/run/result-cache'
import type { Runner } from '../../queries/run/runner'
import { authenticate, authorizeProject, resolveQueryProject } from './auth'
import type { Config } from '../config'
import type { Directory } from './directory'
import { docsRouter } from './docs'
import { Drain } from './drain'
import { createErrorHandler, errorBody, notFoundHandler } from './error-handler'
import { FailedAttempts } from './failed-attempts'
import { PerClientSlots, clientRateLimit, concurrencyCap } from './limits'
import type { Logger } from '../logger'
import type { Metrics } from './metrics'
import { buildOpenApi } from './openapi'
import { ReadinessProbe } from './readiness'
import { ROUTES, isResourceRoute, type ResourceRoute } from './routes'
import { serveMulti } from './serve-multi'

/** How the gateway parses query strings; `explain` resolves requests with the same setting. */
export const QUERY_PARSER = 'simple'

export interface AppOptions {
  config: Pick<
    Config,
    'rateLimit' | 'maxConcurrentQueries' | 'sessionLookbackHours' | 'trustProxy' | 'cache' | 'maxExecutionSeconds' | 'maxResultRows' | 'streamIdleSeconds' | 'maxStreamsPerClient'
  > & { engine: Pick<Config['engine'], 'cluster'> }
  runner: Runner
  directory: Directory
  logger: Logger
  clock?: () => Date
  rateLimitStore?: Store
  /** Where requests, auth failures and exported rows are counted (none when absent). */
  metrics?: Metrics
  /** Shutdown state: `/ready` and new requests answer 503 once it drains (server/http/main.ts on SIGTERM). */
  drain?: Drain
  /** What `/ready` asks (one over `runner` by default). */
  readiness?: ReadinessProbe
}

/** The same request with the next `cursor`, as a path: built from the request path alone, never its Host header. */
function nextPageLink(req: Request): string {
  const url = new URL(req.originalUrl, 'http://localhost')
  const cursor = Number(url.searchParams.get('cursor') ?? '1')
  url.searchParams.set('cursor', String(cursor + 1))
  return `<${url.pathname}${url.search}>; rel="next"`
}

export function createApp(options: AppOptions): express.Express {
  const { runner, directory, logger, config, metrics } = options
  const clock = options.clock ?? (() => new Date())
  const drain = options.drain ?? new Drain()
  const readiness = options.readiness ?? new ReadinessProbe(runner)
  const answers = new Answers(runner, { cluster: config.engine.cluster, cache: config.cache, maxExecutionSeconds: config.maxExecutionSeconds, maxResultRows: config.maxResultRows })
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
    res.on('finish', () => {
      logger.info('request', {
        requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        clientId: res.locals.client?.id,
        project: res.locals.projectId,
        template: res.locals.template,
        durationMs: Math.round(performance.now() - started),
        queryMs: res.locals.queryMs,
        readRows: res.locals.readRows,
        readBytes: res.locals.readBytes,
      })
    })
    next()
  })

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/ready', async (_req, res) => {
    if (drain.isDraining) {
      res.set('Retry-After', '5').status(503).json(errorBody({ status: 503, message: 'The gateway is shutting down', requestId: res.locals.requestId }))
      return
    }
    const state = await readiness.check()
    if (state.ready) {
      res.json({ status: 'ready' })
      return
    }
    res.set('Retry-After', '5').status(503).json(errorBody({ status: 503, message: state.reason, requestId: res.locals.requestId }))
  })
  const openApi = buildOpenApi(ROUTES)
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi)
  })
  app.get('/docs', (req, res, next) => (req.originalUrl.split('?')[0] === '/docs' ? res.redirect(301, 'docs/') : next()))
  app.use('/docs', docsRouter())

  app.use(drain.track)
  const guards = [
    authenticate({ directory, failures: new FailedAttempts({ limit: config.rateLimit.requests, windowMs: config.rateLimit.windowMs }), onFailure: metrics?.authFailure }),
    clientRateLimit({ ...config.rateLimit, store: options.rateLimitStore }),
    concurrencyCap(config.maxConcurrentQueries),
  ]
  const multiContext = {
    runner,
    directory,
    clock,
    metrics,
    sessionLookbackMs: config.sessionLookbackHours * 3_600_000,
    streamIdleMs: config.streamIdleSeconds * 1000,
    streams: new PerClientSlots(config.maxStreamsPerClient),
    maxStreamsPerClient: config.maxStreamsPerClient,
  }
  for (const route of ROUTES) {
    app.get(route.path, ...guards, (req: Request, res: Response) =>
      isResourceRoute(route) ? serveResource(route, req, res) : serveMulti({ ...multiContext, route }, req, res),
    )
  }

  async function serveResource({ resource, projectFrom = 'path' }: ResourceRoute, req: Request, res: Response) {
    const askedAt = performance.now()
    const project =
      projectFrom === 'path'
        ? await authorizeProject(directory, res.locals.client, String(req.params.projectId))
        : await resolveQueryProject(directory, res.locals.client, req.query as Record<string, unknown>)
    res.locals.projectId = project.id
    const answered = await answers.answer(resource, {
      raw: req.query as Record<string, unknown>,
      scope: { project, now: clock(), sessionLookbackMs: config.sessionLookbackHours * 3_600_000 },
      clientId: res.locals.client.id,
      signal: res.locals.signal,
      askedAt,
      revalidate: /\bno-(cache|store)\b/i.test(req.get('cache-control') ?? ''),
      report: (facts) => Object.assign(res.locals, facts),
    })
    metrics?.cacheLookup(answered.hit)
    const text = JSON.stringify(answered.body)
    const etag = etagOf(text)
    const age = Math.max(0, Math.floor((Date.now() - answered.storedAt) / 1000))
    res.set({ 'Cache-Control': `private, max-age=${Math.max(0, answered.maxAgeSeconds - age)}`, Age: String(age), 'X-Cache': answered.hit ? 'hit' : 'miss', ETag: etag })
    if (answered.hasMore) res.set('Link', nextPageLink(req))
    if (matchesEtag(req.get('if-none-match'), etag)) {
      res.status(304).end()
      return
    }
    res.type('json').send(text)
  }

  app.use(notFoundHandler)
  app.use(createErrorHandler(logger))
  return app
}
