// Per-client guards: a request-rate limit (express-rate-limit) and a cap on concurrent queries.
import type { RequestHandler } from 'express'
import { rateLimit, type Store } from 'express-rate-limit'
import { QueryError } from '../../queries/core/errors'
import type { ApiClient } from './directory'

export interface LimitOptions {
  requests: number
  windowMs: number
  store?: Store
}

const clientIdOf = (locals: Record<string, unknown>) => (locals.client as ApiClient).id

export function clientRateLimit(options: LimitOptions): RequestHandler {
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.requests,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    store: options.store,
    keyGenerator: (_req, res) => clientIdOf(res.locals),
    handler: (req, res, next) => {
      const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(options.windowMs / 1000)
      res.set('Retry-After', String(seconds))
      next(new QueryError('rate_limited', `More than ${options.requests} requests in ${options.windowMs} ms; retry after ${seconds} s`))
    },
  })
}

export function concurrencyCap(maxInFlight: number): RequestHandler {
  const inFlight = new Map<string, number>()
  return (_req, res, next) => {
    const id = clientIdOf(res.locals)
    const current = inFlight.get(id) ?? 0
    if (current >= maxInFlight) throw new QueryError('too_many_queries', `At most ${maxInFlight} queries at once per client`)
    inFlight.set(id, current + 1)
    res.once('close', () => {
      const left = (inFlight.get(id) ?? 1) - 1
      if (left > 0) inFlight.set(id, left)
      else inFlight.delete(id)
    })
    next()
  }
}
