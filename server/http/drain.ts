// Graceful shutdown: once draining, `/ready` and new requests answer 503, and the requests in flight get
// a grace period to finish before the entry point cuts their connections.
import type { RequestHandler } from 'express'
import { errorBody } from './error-handler'

export class Drain {
  private inFlight = 0
  private draining = false
  private onIdle: (() => void) | undefined

  get isDraining(): boolean {
    return this.draining
  }

  get requestsInFlight(): number {
    return this.inFlight
  }

  /** Middleware: counts the requests in flight, and refuses new ones while draining. */
  readonly track: RequestHandler = (_req, res, next) => {
    if (this.draining) {
      res
        .set({ 'Retry-After': '5', Connection: 'close' })
        .status(503)
        .json(errorBody({ status: 503, message: 'The gateway is shutting down; retry shortly', requestId: res.locals.requestId }))
      return
    }
    this.inFlight += 1
    res.once('close', () => {
      this.inFlight -= 1
      if (this.inFlight === 0) this.onIdle?.()
    })
    next()
  }

  /** Starts draining; resolves true once no request is in flight, or false when `graceMs` runs out first. */
  finish(graceMs: number): Promise<boolean> {
    this.draining = true
    if (this.inFlight === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs)
      this.onIdle = () => {
        clearTimeout(timer)
        resolve(true)
      }
    })
  }
}
