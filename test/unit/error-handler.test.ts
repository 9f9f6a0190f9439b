// A failure after a stream's headers went out: the response is cut off without its last chunk (the
// client sees an incomplete answer) and the failure is logged as any other, never left to Express.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import express from 'express'
import winston from 'winston'
import { QueryError } from '../../queries/core/errors'
import { createErrorHandler } from '../../server/http/error-handler'
import { createLogger } from '../../server/logger'

describe('error handler', () => {
  it('cuts off a stream that fails after its headers were sent, and logs why', async () => {
    const logger = createLogger('info', false, 'json')
    const stream = new PassThrough()
    let logged = ''
    stream.on('data', (chunk: Buffer) => void (logged += chunk.toString()))
    logger.clear().add(new winston.transports.Stream({ stream }))
    const app = express()
    app.get('/stream', (_req, res, next) => {
      res.status(200).type('application/x-ndjson')
      res.write('{"id":1}\n')
      setTimeout(() => next(new QueryError('timeout', 'The query took longer than the time limit')), 20)
    })
    app.use(createErrorHandler(logger))
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`)
      assert.equal(res.status, 200)
      await assert.rejects(res.text(), 'the body ends without its last chunk')
      const entry = JSON.parse(logged.trim())
      assert.deepEqual([entry.message, entry.code, entry.cutOff], ['request failed', 'timeout', true])
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
