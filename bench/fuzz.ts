// `npm run bench -- fuzz`: 10,000 seeded junk requests (the bad-input test's generator) against the
// gateway in a child process over the golden data; prints the count of each status. Passes with no 5xx but 503/504 and no crash.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../server/config'
import { openEngine } from '../server/engine'
import { migrate } from '../server/admin/migrate'
import { ROUTES } from '../server/http/routes'
import { junkRequests } from '../test/support/fuzz'
import { loadGolden } from '../test/support/harness'
import { startGateway } from './gateway'

const REQUESTS = Number(process.env.QUARRY_FUZZ_REQUESTS ?? 10_000)
const WORKERS = 4
const PORT = Number(process.env.QUARRY_BENCH_PORT ?? 3998)
const REQUEST_TIMEOUT_MS = 60_000

/** A fresh data directory holding the golden projects, and a root client's headers. */
async function prepareGolden(dataDir: string): Promise<Record<string, string>> {
  const engine = await openEngine({ ...loadConfig({}).engine, dataDir })
  try {
    await migrate(engine)
    const root = await loadGolden(engine)
    return { 'openpanel-client-id': root.id, 'openpanel-client-secret': root.secret }
  } finally {
    await engine.close()
  }
}

export async function main(args: string[]): Promise<void> {
  const requests = Number(args[0] ?? REQUESTS)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-fuzz-'))
  try {
    const headers = await prepareGolden(dataDir)
    const gateway = await startGateway({ dataDir, port: PORT, env: { QUARRY_RATE_LIMIT: '1000000' } })
    const urls = junkRequests({ seed: 99, rounds: Math.ceil(requests / ROUTES.length), projectId: 'shop' })
    const statuses = new Map<string, number>()
    const serverErrors: string[] = []
    let sent = 0
    const started = performance.now()
    const worker = async () => {
      for (let next = urls.next(); !next.done && sent < requests; next = urls.next()) {
        const number = ++sent
        const status = await fetch(`${gateway.url}${next.value}`, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then(
          async (res) => {
            const body = await res.text()
            if (res.status >= 500 && res.status !== 503 && res.status !== 504) serverErrors.push(`${res.status} ${next.value.slice(0, 200)}: ${body.slice(0, 200)}`)
            return String(res.status)
          },
          (error: Error) => `failed (${error.name})`,
        )
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
        if (number % 1000 === 0) console.log(`${number} sent`)
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, worker))
    const seconds = (performance.now() - started) / 1000
    const health = await fetch(`${gateway.url}/health`).then((res) => res.status, () => 0)
    const crash = gateway.exited()
    await gateway.stop()
    console.log(`\n${sent} junk requests over ${ROUTES.length} routes in ${seconds.toFixed(0)} s, ${WORKERS} at a time`)
    console.log('| status | requests |\n|---|---|')
    for (const [status, count] of [...statuses].sort()) console.log(`| ${status} | ${count} |`)
    console.log(`5xx other than 503/504: ${serverErrors.length}; gateway crashed: ${crash ? JSON.stringify(crash) : 'no'}; /health after: ${health}`)
    for (const line of serverErrors.slice(0, 20)) console.log(`  ${line}`)
    if (serverErrors.length || crash || health !== 200) throw new Error('the fuzz found a 5xx other than 503/504, a crash, or a gateway that no longer answers')
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

