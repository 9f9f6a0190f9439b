// Per-client guards: a request-rate limit (express-rate-limit), a cap on concurrent queries and one on
// open export streams.
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

/** Counts per client of things it holds, each taken for as long as a response is open, capped per client. */
export class PerClientSlots {
  private readonly held = new Map<string, number>()

  constructor(private readonly max: number) {}

  /** Takes one of `clientId`'s slots until `res` closes; false (nothing taken) when it holds `max`. */
  take(clientId: string, res: { once(event: 'close', listener: () => void): unknown }): boolean {
    const current = this.held.get(clientId) ?? 0
    if (current >= this.max) return false
    this.held.set(clientId, current + 1)
    res.once('close', () => {
      const left = (this.held.get(clientId) ?? 1) - 1
      if (left > 0) this.held.set(clientId, left)
      else this.held.delete(clientId)
    })
    return true
  }
}

/** Takes one of the client's query `slots` for the request (a batch's questions take the same ones, one each). */
export function concurrencyCap(maxInFlight: number, slots = new PerClientSlots(maxInFlight)): RequestHandler {
  return (_req, res, next) => {
    if (!slots.take(clientIdOf(res.locals), res))
      throw new QueryError('too_many_queries', `At most ${maxInFlight} queries at once per client`)
    next()
  }
}
