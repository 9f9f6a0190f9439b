// `npm start` as a child process on a data directory: started, waited for until `/ready` answers 200 or
// the process ends, its `/metrics` read, stopped with SIGTERM. For the start tests and bench/start-loop.ts.
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = path.join(__dirname, '..', '..')
const POLL_MS = 100
/** tsx's loader by its path: the gateway runs in its data directory (where a core of a crash lands), not here. */
const TSX = pathToFileURL(require.resolve('tsx')).href

export interface GatewayProcess {
  child: ChildProcess
  port: number
  metricsPort: number
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string
  /** Its exit code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** A port nobody listens on now (the OS's choice). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Starts the gateway on `dataDir`, with no demo seed; `env` adds to or overrides its environment. */
export async function startGateway(dataDir: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const port = await freePort()
  const metricsPort = await freePort()
  // TRICKY: tsx's own CLI relays a signal to its child and SIGKILLs it when the child is busy for 60 ms,
  // which would cut the drain short; loaded with --import, tsx leaves the signal to the gateway.
  const child = spawn(process.execPath, ['--import', TSX, path.join(ROOT, 'server', 'main.ts')], {
    cwd: dataDir,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      QUARRY_METRICS_PORT: String(metricsPort),
      QUARRY_DATA_DIR: dataDir,
      QUARRY_DEMO_EVENTS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk) => (output += chunk))
  child.stderr?.on('data', (chunk) => (output += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  return { child, port, metricsPort, output: () => output, exited }
}

async function status(url: string): Promise<number | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5_000) })
    await res.arrayBuffer()
    return res.status
  } catch {
    return undefined
  }
}

/** Polls `/ready` until it answers 200 (true), or the process ends or `ms` pass (false). */
export async function waitReady(gateway: GatewayProcess, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (gateway.child.exitCode !== null || gateway.child.signalCode !== null) return false
    if ((await status(`http://127.0.0.1:${gateway.port}/ready`)) === 200) return true
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
  return false
}

/** The metrics listener's text, or undefined when it does not answer 200. */
export async function readMetrics(gateway: GatewayProcess): Promise<string | undefined> {
  try {
    const res = await fetch(`http://127.0.0.1:${gateway.metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) })
    const text = await res.text()
    return res.status === 200 ? text : undefined
  } catch {
    return undefined
  }
}

/** SIGTERM, then its exit; SIGKILL when it has not exited within `ms`. */
export async function stopGateway(gateway: GatewayProcess, ms = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGTERM')
  const timer = setTimeout(() => gateway.child.kill('SIGKILL'), ms)
  try {
    return await gateway.exited
  } finally {
    clearTimeout(timer)
  }
}
