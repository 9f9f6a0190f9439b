// The Express app factory (no listen): ops endpoints, then every route of the routes table behind
// drain -> auth -> rate limit -> concurrency cap -> project authorization -> the query pipeline.
import crypto from 'node:crypto'
import express, { type Request, type Response } from 'express'
import type { Store } from 'express-rate-limit'
import swaggerUi from 'swagger-ui-express'
import { answer, type Resource } from '../queries/pipeline'
import type { Runner } from '../queries/run'
import { authenticate, authorizeProject, resolveQueryProject } from './auth'
import type { Config } from './config'
import type { Directory } from './directory'
import { Drain } from './drain'
import { createErrorHandler, errorBody, notFoundHandler } from './error-handler'
import { clientRateLimit, concurrencyCap, failedAuthLimit } from './limits'
import type { Logger } from './logger'
import type { Metrics } from './metrics'
import { buildOpenApi } from './openapi'
import { ROUTES, isResourceRoute } from './routes'

/** How the gateway parses query strings; `explain` resolves requests with the same setting. */
export const QUERY_PARSER = 'simple'

export interface AppOptions {
  config: Pick<Config, 'rateLimit' | 'maxConcurrentQueries' | 'sessionLookbackHours' | 'trustProxy'>
  runner: Runner
  directory: Directory
  logger: Logger
  clock?: () => Date
  rateLimitStore?: Store
  /** Where requests, auth failures and exported rows are counted (none when absent). */
  metrics?: Metrics
  /** Shutdown state: `/ready` and new requests answer 503 once it drains (server/main.ts on SIGTERM). */
  drain?: Drain
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
      res.set('Retry-After', '5').status(503).json(errorBody(503, 'The gateway is shutting down', res.locals.requestId))
      return
    }
    if (await runner.ping()) {
      res.json({ status: 'ready' })
      return
    }
    res.set('Retry-After', '5').status(503).json(errorBody(503, 'ClickHouse is not reachable', res.locals.requestId))
  })
  const openApi = buildOpenApi(ROUTES)
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi)
  })
  // /docs: the API reference, rendered by swagger-ui-express from /openapi.json with every asset from the
  // installed package (no CDN); "Try it out" sends real calls with the credentials given under "Authorize".
  const docs = { customSiteTitle: 'Quarry API', swaggerOptions: { url: '../openapi.json', validatorUrl: null } }
  app.get('/docs', (req, res, next) => (req.originalUrl.split('?')[0] === '/docs' ? res.redirect(301, 'docs/') : next()))
  app.use('/docs', swaggerUi.serveFiles(undefined, docs), swaggerUi.setup(undefined, docs))

  app.use(drain.track)
  const guards = [
    failedAuthLimit(config.rateLimit),
    authenticate(directory, metrics?.authFailure),
    clientRateLimit({ ...config.rateLimit, store: options.rateLimitStore }),
    concurrencyCap(config.maxConcurrentQueries),
  ]
  for (const route of ROUTES) {
    app.get(route.path, ...guards, (req: Request, res: Response) =>
      isResourceRoute(route) ? serveResource(route.resource, route.projectFrom ?? 'path', req, res) : route.serve({ runner, directory, clock, metrics }, req, res),
    )
  }

  async function serveResource(resource: Resource<unknown>, projectFrom: 'path' | 'query', req: Request, res: Response) {
    const project =
      projectFrom === 'path'
        ? await authorizeProject(directory, res.locals.client, String(req.params.projectId))
        : await resolveQueryProject(directory, res.locals.client, req.query as Record<string, unknown>)
    res.locals.projectId = project.id
    const result = await answer(resource, { ...(req.query as Record<string, unknown>) }, { project, now: clock(), sessionLookbackMs: config.sessionLookbackHours * 3_600_000 }, runner, {
      signal: res.locals.signal,
      clientId: res.locals.client.id,
    })
    Object.assign(res.locals, { template: result.compiled.template, queryMs: Math.round(result.run.durationMs), ...result.run })
    if (result.hasMore) res.set('Link', nextPageLink(req))
    res.json(result.body)
  }

  app.use(notFoundHandler)
  app.use(createErrorHandler(logger))
  return app
}
