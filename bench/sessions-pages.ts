// Mode `sessions`: entry and exit pages against the `referrer` breakdown (the same session-attribute path),
// and the sessions list's first page and a page 1M sessions deep, through the gateway (no cache), on the
// bench's data; medians of interleaved rounds, so the machine's load falls on every question alike.
import { encodeSessionCursor } from '../queries/insights/sessions-list'
import { median, shuffled } from './compare'
import { startGateway } from './gateway'
import { Random } from '../test/support/random'
import { BENCH_GATEWAY_ENV, MAIN, PORT, PROJECT, openDataset, waitForAuth } from './setup'
import { WINDOW } from './questions'

const ROUNDS = Number(process.env.QUARRY_BENCH_RUNS ?? 15)
const DEPTH = Number(process.env.QUARRY_BENCH_SESSIONS_DEPTH ?? 1_000_000)
/** The whole 90 days of the dataset: the 30-day window holds fewer sessions than the deep page needs. */
const LONG_WINDOW = { startDate: '2025-10-03', endDate: '2025-12-31' }

const window = (bounds: { startDate: string; endDate: string }) => `startDate=${bounds.startDate}&endDate=${bounds.endDate}`

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now()
  const res = await fetch(`http://127.0.0.1:${PORT}${url}`, { headers })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
  return performance.now() - started
}

export async function main(): Promise<void> {
  const prepared = await openDataset(MAIN)
  // The session DEPTH rows into the 90-day list, found once from the partial rows (not timed).
  const [deep] = await prepared.engine.client
    .query({
      query: `SELECT toUnixTimestamp64Milli(start) AS ms, session_id FROM (
          SELECT session_id, min(started_at) AS start FROM sessions WHERE project_id = {projectId:String} GROUP BY session_id
          HAVING start >= toDateTime64('2025-10-02 22:00:00', 3, 'UTC') AND start < toDateTime64('2025-12-31 23:00:00', 3, 'UTC'))
        ORDER BY start DESC, session_id DESC LIMIT 1 OFFSET {offset:UInt64}`,
      query_params: { projectId: PROJECT, offset: DEPTH - 1 },
      format: 'JSONEachRow',
    })
    .then((rs) => rs.json<{ ms: string; session_id: string }>())
  await prepared.engine.close()
  if (!deep) throw new Error(`the 90-day window holds fewer than ${DEPTH} sessions`)
  const cursor = encodeSessionCursor({ startMs: Number(deep.ms), id: deep.session_id })
  const headers = {
    'openpanel-client-id': prepared.credentials.id,
    'openpanel-client-secret': prepared.credentials.secret,
    'cache-control': 'no-cache',
  }
  const questions: [string, string][] = [
    ['referrer (30 days)', `/insights/${PROJECT}/referrer?${window(WINDOW)}`],
    ['entry pages (30 days)', `/insights/${PROJECT}/pages/entry_exit?mode=entry&${window(WINDOW)}`],
    ['exit pages (30 days)', `/insights/${PROJECT}/pages/entry_exit?mode=exit&${window(WINDOW)}`],
    ['sessions list, first page (30 days)', `/insights/${PROJECT}/sessions?${window(WINDOW)}`],
    ['sessions list, first page (90 days)', `/insights/${PROJECT}/sessions?${window(LONG_WINDOW)}`],
    [`sessions list, page ${DEPTH} sessions deep (90 days)`, `/insights/${PROJECT}/sessions?${window(LONG_WINDOW)}&cursor=${cursor}`],
  ]
  const gateway = await startGateway({ dataDir: MAIN.dir, port: PORT, env: BENCH_GATEWAY_ENV })
  try {
    await waitForAuth(headers)
    const samples = questions.map((): number[] => [])
    const random = new Random(ROUNDS)
    // Round 0 warms the gateway and the engine up, untimed.
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (const index of shuffled(questions.length, random)) {
        const took = await timed(questions[index][1], headers)
        if (round > 0) samples[index].push(took)
      }
    }
    const referrer = median(samples[0])
    console.log(`Medians of ${ROUNDS} interleaved rounds after a warm-up, through the gateway (Cache-Control: no-cache)\n`)
    console.log('| question | p50 ms | min ms | max ms | / referrer |')
    console.log('|---|---|---|---|---|')
    questions.forEach(([name], index) => {
      const values = samples[index]
      console.log(
        `| ${name} | ${median(values).toFixed(1)} | ${Math.min(...values).toFixed(1)} | ${Math.max(...values).toFixed(1)} | ${(median(values) / referrer).toFixed(2)}× |`,
      )
    })
  } finally {
    await gateway.stop()
  }
}
