// Entry point: config -> engine -> migrations -> demo bootstrap -> listen; SIGTERM drains and closes.
import type { Server } from 'node:http'
import { createApp } from './app'
import { ConfigError, loadConfig } from './config'
import { ensureDemo, type DemoCredentials } from './demo'
import { Directory } from './directory'
import { EngineBusyError, createRunner, openEngine } from './engine'
import { createLogger } from './logger'
import { migrate } from './migrate'

function printWelcome(port: number, credentials: DemoCredentials | undefined) {
  const url = `http://localhost:${port}`
  const lines = [`Quarry listening on ${url}`]
  if (credentials) {
    lines.push(
      `Demo project:  ${credentials.projectId}`,
      `Client id:     ${credentials.clientId}`,
      `Client secret: ${credentials.clientSecret}`,
      'Try:',
      `  curl -s -H 'openpanel-client-id: ${credentials.clientId}' -H 'openpanel-client-secret: ${credentials.clientSecret}' ${url}/insights/${credentials.projectId}/live`,
    )
  }
  console.log(lines.join('\n'))
}

async function main() {
  const config = loadConfig()
  const logger = createLogger(config.logLevel, false, config.logFormat)
  const engine = await openEngine(config.engine)
  const applied = await migrate(engine)
  if (applied.length) logger.info('migrations applied', { applied })
  const credentials = config.engine.mode === 'embedded' ? await ensureDemo(engine, config.demoEvents, (line) => console.log(line)) : undefined
  const runner = createRunner(engine, config)
  const app = createApp({ config, runner, directory: new Directory(runner, config.authCacheMs), logger })
  const server: Server = app.listen(config.port, '0.0.0.0', () => printWelcome(config.port, credentials))

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal })
    server.close(async () => {
      await engine.close()
      logger.info('stopped')
      process.exit(0)
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof EngineBusyError) console.error(`quarry: ${error.message}`)
  else console.error('quarry: failed to start:', error)
  process.exit(1)
})
