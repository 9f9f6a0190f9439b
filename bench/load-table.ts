// `npm run bench -- load`: every insights endpoint, export pages and a chart at concurrency 1 and 8 for
// QUARRY_BENCH_SECONDS each (closed loop, on the load-test kit's autocannon runner), printing p50/p95
// latency and requests per second.
import { DIMENSIONS } from '../queries/core/registry'
import { runLoad } from '../loadtest/runner'
import { MAIN, PORT, PROJECT, openDataset, BENCH_GATEWAY_ENV, waitForAuth } from './setup'
import { startGateway } from './gateway'
import { WINDOW } from './questions'

const SECONDS = Number(process.env.QUARRY_BENCH_SECONDS ?? 5)
const RANGE = `startDate=${WINDOW.startDate}&endDate=${WINDOW.endDate}`

const PATHS: [string, string][] = [
  ['live', `/insights/${PROJECT}/live`],
  ...['metrics', 'pages', ...Object.keys(DIMENSIONS)].map((name): [string, string] => [name, `/insights/${PROJECT}/${name}?${RANGE}`]),
  [
    'referrer (event filter)',
    `/insights/${PROJECT}/referrer?${RANGE}&filters=${encodeURIComponent(JSON.stringify([{ name: 'path', operator: 'contains', value: ['a'] }]))}`,
  ],
  ['export: first page (limit 50)', `/export/events?projectId=${PROJECT}&limit=50`],
  ['export: first page, all includes', `/export/events?projectId=${PROJECT}&limit=50&includes=properties,profile,meta,geo,device,referrer`],
]

export async function loadTable(): Promise<void> {
  const { engine, credentials } = await openDataset(MAIN)
  await engine.close()
  const headers = { 'openpanel-client-id': credentials.id, 'openpanel-client-secret': credentials.secret, 'cache-control': 'no-cache' }
  const gateway = await startGateway({ dataDir: MAIN.dir, port: PORT, env: BENCH_GATEWAY_ENV })
  try {
    await waitForAuth(headers)
    console.log(`\n${MAIN.events} events, 30-day window, ${SECONDS} s per cell\n`)
    console.log('| endpoint | c=1 p50 ms | c=1 p95 ms | c=1 req/s | c=8 p50 ms | c=8 p95 ms | c=8 req/s | errors |')
    console.log('|---|---|---|---|---|---|---|---|')
    for (const [name, path] of PATHS) {
      const cell = (connections: number) =>
        runLoad({
          url: `http://127.0.0.1:${PORT}`,
          headers,
          connections,
          durationSeconds: SECONDS,
          connection: () => () => ({ route: name, path }),
        })
      const one = (await cell(1)).overall
      const eight = (await cell(8)).overall
      const ms = (value: number) => value.toFixed(0)
      console.log(
        `| ${name} | ${ms(one.latency.p50)} | ${ms(one.latency.p95)} | ${one.rps.toFixed(1)} | ${ms(eight.latency.p50)} | ${ms(eight.latency.p95)} | ${eight.rps.toFixed(1)} | ${one.errors + eight.errors} |`,
      )
    }
  } finally {
    await gateway.stop()
  }
}
