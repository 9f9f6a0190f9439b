// Log lines: JSON for machines, readable `time level message key=value` lines for people, and
// LOG_FORMAT read strictly.
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import winston from 'winston'
import { ConfigError, loadConfig } from '../../server/config'
import { createLogger, prettyLine } from '../../server/logger'

function capture(logger: winston.Logger): () => string {
  const stream = new PassThrough()
  let text = ''
  stream.on('data', (chunk: Buffer) => void (text += chunk.toString()))
  logger.clear().add(new winston.transports.Stream({ stream }))
  return () => text
}

describe('logger', () => {
  it('writes one JSON object per line when the format is json', () => {
    const logger = createLogger('info', false, 'json')
    const text = capture(logger)
    logger.info('request', { status: 200, path: '/insights/demo/live' })
    const line = JSON.parse(text().trim())
    assert.equal(line.message, 'request')
    assert.equal(line.status, 200)
    assert.match(line.timestamp, /^\d{4}-\d\d-\d\dT/)
  })

  it('writes a readable line when the format is pretty: time, level, message, then key=value', () => {
    const logger = createLogger('info', false, 'pretty')
    const text = capture(logger)
    logger.warn('slow statement', { template: 'insights.pages', durationMs: 1840, note: 'two words' })
    assert.match(
      text(),
      /^\d\d:\d\d:\d\d\.\d{3} (\x1b\[\d+m)?warn(\x1b\[\d+m)?  slow statement template=insights\.pages durationMs=1840 note="two words"\n$/,
    )
  })

  it('quotes values that would be ambiguous and writes objects as JSON', () => {
    const line = prettyLine({
      level: 'info',
      message: 'x',
      timestamp: '2024-03-01T10:00:00.123Z',
      a: 'k=v',
      b: { c: 1 },
      d: '',
    } as winston.Logform.TransformableInfo)
    assert.equal(line, '10:00:00.123 info  x a="k=v" b={"c":1} d=""')
  })

  it('reads LOG_FORMAT: json, pretty, or unset (decided by the terminal)', () => {
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json')
    assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty')
    assert.equal(loadConfig({}).logFormat, undefined)
    assert.throws(
      () => loadConfig({ LOG_FORMAT: 'xml' }),
      (error: unknown) => error instanceof ConfigError && /LOG_FORMAT: must be one of json, pretty/.test(error.message),
    )
  })
})
