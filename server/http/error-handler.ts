// The one place errors become HTTP responses. 5xx bodies never carry SQL, stacks or engine details;
// the log has them, keyed by the request id.
import http from 'node:http'
import type { ErrorRequestHandler, RequestHandler } from 'express'
import { QueryError, assertNever, type Issue, type QueryErrorCode } from '../../queries/core/errors'
import { toQueryError } from '../../queries/core/engine-errors'
import type { Logger } from '../logger'
import type { CutReason } from './metrics'

/** The HTTP status of an error code. */
function statusOf(code: QueryErrorCode): number {
  switch (code) {
    case 'invalid_request':
    case 'too_costly':
      return 400
    case 'unauthorized':
      return 401
    case 'forbidden':
      return 403
    case 'not_found':
      return 404
    case 'rate_limited':
    case 'too_many_queries':
      return 429
    case 'engine_unavailable':
    case 'overloaded':
      return 503
    case 'cancelled':
      // The client went away (nginx's "client closed request"); nobody reads this answer.
      return 499
    case 'timeout':
      return 504
    default:
      return assertNever(code)
  }
}

const RETRY_AFTER_SECONDS: Partial<Record<QueryErrorCode, number>> = { engine_unavailable: 5, overloaded: 1, too_many_queries: 1 }

export function errorBody({
  status,
  message,
  requestId,
  issues = [],
}: {
  status: number
  message: string
  requestId: string
  issues?: Issue[]
}) {
  return {
    error: http.STATUS_CODES[status] ?? 'Error',
    message,
    ...(issues.length ? { details: { issues } } : {}),
    requestId,
  }
}

/** Express's body parser and friends throw errors with a `status`; keep their 4xx, hide the rest. */
function clientStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined
}

/**
 * What an error answers, the status and the body, for a request or a batch's question: a QueryError its own, an
 * Express 4xx with its problem listed, anything else a 500 that says nothing internal. `log` is told what a 5xx
 * was (the code and the cause, or the error), never the client.
 */
export function errorAnswer(
  rawError: unknown,
  requestId: string,
  log: (fields: Record<string, string>) => void,
): { status: number; body: ReturnType<typeof errorBody>; code?: QueryErrorCode } {
  const error = toQueryError(rawError)
  const cause = () => String((rawError as Error)?.stack ?? rawError)
  if (error instanceof QueryError) {
    const status = statusOf(error.code)
    if (status >= 500) log({ code: error.code, cause: cause() })
    return { status, code: error.code, body: errorBody({ status, message: error.message, requestId, issues: error.issues }) }
  }
  const clientStatus = clientStatusOf(error)
  if (clientStatus) {
    // Express's own 4xx (an undecodable path, say): still one body shape, with the problem listed.
    const message = (error as Error).message
    return { status: clientStatus, body: errorBody({ status: clientStatus, message, requestId, issues: [{ path: [], message }] }) }
  }
  log({ error: String((error as Error)?.stack ?? error) })
  return { status: 500, body: errorBody({ status: 500, message: 'Internal error; quote the requestId when reporting it', requestId }) }
}

export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (rawError, req, res, _next) => {
    const requestId = String(res.locals.requestId ?? '')
    const error = toQueryError(rawError)
    if (res.headersSent) {
      // A stream under way cannot change its status: it is cut off without its last chunk, so the client
      // sees an incomplete answer, never a complete-looking one.
      const code = error instanceof QueryError ? error.code : 'internal'
      logger.error('request failed', { requestId, path: req.path, code, cutOff: true, cause: String(rawError?.stack ?? rawError) })
      res.locals.cut = 'stream_failed' satisfies CutReason
      res.destroy()
      return
    }
    const answer = errorAnswer(rawError, requestId, (fields) => logger.error('request failed', { requestId, path: req.path, ...fields }))
    const retryAfter = answer.code && RETRY_AFTER_SECONDS[answer.code]
    if (retryAfter) res.set('Retry-After', String(retryAfter))
    res.status(answer.status).json(answer.body)
  }
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json(errorBody({ status: 404, message: 'No such endpoint', requestId: String(res.locals.requestId ?? '') }))
}
