import assert from 'node:assert/strict'
import { compactionOptions } from '../../server/admin/compact'
import { ConfigError, MAX_EXECUTION_SECONDS_LIMIT, loadConfig } from '../../server/config'
import { keepFreedMemory } from '../../server/engine'

describe('config', () => {
  it('defaults to the embedded engine on port 3000 with a 15 s query limit', () => {
    const config = loadConfig({})
    assert.equal(config.engine.mode, 'embedded')
    assert.equal(config.port, 3000)
    assert.equal(config.maxExecutionSeconds, 15)
    assert.deepEqual(config.rateLimit, { requests: 100, windowMs: 10_000 })
    assert.match(config.engine.dataDir, /\.data$/)
  })

  it("keeps replaced compactions for the same time whatever the process's own time limit: twice the longest any gateway accepts", () => {
    const short = compactionOptions(loadConfig({ QUARRY_MAX_EXECUTION_SECONDS: '1' }))
    const long = compactionOptions(loadConfig({ QUARRY_MAX_EXECUTION_SECONDS: String(MAX_EXECUTION_SECONDS_LIMIT) }))
    assert.equal(short.keepSupersededMs, long.keepSupersededMs)
    assert.equal(short.keepSupersededMs, 2 * MAX_EXECUTION_SECONDS_LIMIT * 1000)
    assert.throws(
      () => loadConfig({ QUARRY_MAX_EXECUTION_SECONDS: String(MAX_EXECUTION_SECONDS_LIMIT + 1) }),
      /QUARRY_MAX_EXECUTION_SECONDS/,
    )
  })

  it('switches to server mode when CLICKHOUSE_URL is set', () => {
    const config = loadConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:8123', CLICKHOUSE_DATABASE: 'analytics', CLICKHOUSE_CLUSTER: 'main' })
    assert.equal(config.engine.mode, 'server')
    assert.equal(config.engine.database, 'analytics')
    assert.equal(config.engine.cluster, 'main')
  })

  it('reads the trust proxy setting as Express takes it, off by default', () => {
    assert.equal(loadConfig({}).trustProxy, false)
    assert.equal(loadConfig({ QUARRY_TRUST_PROXY: 'true' }).trustProxy, true)
    assert.equal(loadConfig({ QUARRY_TRUST_PROXY: '2' }).trustProxy, 2)
    assert.equal(loadConfig({ QUARRY_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy, 'loopback, 10.0.0.0/8')
    assert.equal(loadConfig({}).shutdownGraceMs, 10_000)
  })

  it('reads the serving and admin users and the engine queue settings', () => {
    const defaults = loadConfig({})
    assert.deepEqual([defaults.engine.adminUser, defaults.engine.maxInFlight, defaults.engineQueue], [undefined, 4, 64])
    const config = loadConfig({
      CLICKHOUSE_URL: 'http://127.0.0.1:8123',
      CLICKHOUSE_USER: 'quarry_reader',
      CLICKHOUSE_ADMIN_USER: 'quarry_admin',
      CLICKHOUSE_ADMIN_PASSWORD: 'pw',
      QUARRY_ENGINE_MAX_IN_FLIGHT: '8',
      QUARRY_ENGINE_QUEUE: '200',
    })
    assert.deepEqual(
      [config.engine.user, config.engine.adminUser, config.engine.adminPassword, config.engine.maxInFlight, config.engineQueue],
      ['quarry_reader', 'quarry_admin', 'pw', 8, 200],
    )
  })

  it("keeps the embedded engine's freed memory for 10 minutes unless the operator configured its allocator", () => {
    assert.equal(loadConfig({}).engine.memoryDecaySeconds, 600)
    const env: Record<string, string | undefined> = {}
    keepFreedMemory(loadConfig({ QUARRY_ENGINE_MEMORY_DECAY_SECONDS: '30' }).engine, env)
    assert.equal(env.JE_MALLOC_CONF, 'dirty_decay_ms:30000,background_thread:true')
    const operators = { JE_MALLOC_CONF: 'dirty_decay_ms:1000' }
    keepFreedMemory(loadConfig({}).engine, operators)
    assert.equal(operators.JE_MALLOC_CONF, 'dirty_decay_ms:1000')
  })

  const bad: [string, string, RegExp][] = [
    ['PORT', 'eighty', /PORT: expected a whole number/],
    ['PORT', '70000', /PORT: must be between 0 and 65535/],
    ['PORT', ' 8080', /PORT: expected a whole number/],
    ['QUARRY_RATE_LIMIT', '100 ', /QUARRY_RATE_LIMIT: expected a whole number/],
    ['QUARRY_AUTH_CHECKS_PER_SECOND', '0x10', /QUARRY_AUTH_CHECKS_PER_SECOND: expected a whole number/],
    ['QUARRY_TRUST_PROXY', ' 2', /QUARRY_TRUST_PROXY: expected true, false, a hop count or addresses/],
    ['CLICKHOUSE_URL', 'not a url', /CLICKHOUSE_URL: not a URL/],
    ['CLICKHOUSE_URL', 'ftp://x', /CLICKHOUSE_URL: must be an http/],
    ['CLICKHOUSE_DATABASE', 'db; DROP', /CLICKHOUSE_DATABASE: must be a plain identifier/],
    ['CLICKHOUSE_CLUSTER', "a'b", /CLICKHOUSE_CLUSTER: must be a plain identifier/],
    ['QUARRY_MAX_EXECUTION_SECONDS', '0', /QUARRY_MAX_EXECUTION_SECONDS: must be between/],
    ['QUARRY_RATE_LIMIT', '-5', /QUARRY_RATE_LIMIT: expected a whole number/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL: must be one of/],
    ['QUARRY_TRUST_PROXY', 'not-an-address', /QUARRY_TRUST_PROXY: expected true, false, a hop count or addresses/],
    ['QUARRY_SHUTDOWN_GRACE_MS', 'soon', /QUARRY_SHUTDOWN_GRACE_MS: expected a whole number/],
    ['QUARRY_ENGINE_QUEUE', '0', /QUARRY_ENGINE_QUEUE: must be between/],
    ['QUARRY_ENGINE_MAX_IN_FLIGHT', 'many', /QUARRY_ENGINE_MAX_IN_FLIGHT: expected a whole number/],
    ['QUARRY_ENGINE_MEMORY_DECAY_SECONDS', '-1', /QUARRY_ENGINE_MEMORY_DECAY_SECONDS: expected a whole number/],
  ]
  for (const [name, value, message] of bad) {
    it(`stops on ${name}=${value} with a message naming the setting`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.setting === name && message.test(error.message),
      )
    })
  }
})
