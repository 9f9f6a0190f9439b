// Mode `batch`: the dashboard (metrics, pages and 8 breakdowns) as one POST /insights/:projectId/batch against
// the same 10 GETs sent at once, fresh answers (`Cache-Control: no-cache`), interleaved, medians; the rate-limit
// tokens each draws, read from the `RateLimit` header; and whether every batch result is its GET's answer.
import { interleavedSamples, median, ms, times } from './compare'
import { DASHBOARD } from './questions'
import { PORT, PROJECT } from './setup'
import { withTimedGateway } from './timed-gateway'

const BASE = `http://127.0.0.1:${PORT}`
const PREFIX = `/insights/${PROJECT}/`

/** The dashboard's GETs as the batch's questions: each path under the project, its query string as params. */
const QUESTIONS = DASHBOARD.map((url, index) => {
  const parsed = new URL(url, BASE)
  return { id: `q${index}`, route: parsed.pathname.slice(PREFIX.length), params: Object.fromEntries(parsed.searchParams) }
})

/** The `remaining` of a `RateLimit` header (IETF draft 7). */
const remainingOf = (res: Response) => Number(/remaining=(\d+)/.exec(res.headers.get('ratelimit') ?? '')?.[1])

async function sendBatch(headers: Record<string, string>): Promise<{ res: Response; results: { status: number; body: unknown }[] }> {
  const res = await fetch(`${BASE}${PREFIX}batch`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ requests: QUESTIONS }),
  })
  const answer = (await res.json()) as { results: { status: number; body: unknown }[] }
  if (res.status !== 200) throw new Error(`the batch answered ${res.status}: ${JSON.stringify(answer)}`)
  const failed = answer.results.filter((result) => result.status !== 200)
  if (failed.length) throw new Error(`${failed.length} batch questions failed: ${JSON.stringify(failed[0])}`)
  return { res, results: answer.results }
}

async function sendApart(headers: Record<string, string>): Promise<{ responses: Response[]; bodies: unknown[] }> {
  const responses = await Promise.all(DASHBOARD.map((url) => fetch(`${BASE}${url}`, { headers })))
  const bodies = await Promise.all(responses.map((res) => res.json()))
  const failed = responses.filter((res) => res.status !== 200)
  if (failed.length) throw new Error(`${failed.length} of ${DASHBOARD.length} GETs failed: ${failed.map((res) => res.status)}`)
  return { responses, bodies }
}

export async function main(): Promise<void> {
  await withTimedGateway('sessions', async ({ fresh }) => {
    const [batchTimes, apartTimes] = await interleavedSamples([() => sendBatch(fresh), () => sendApart(fresh)])
    console.log(`The dashboard (${DASHBOARD.length} questions) fresh, interleaved, ${batchTimes.length} rounds after a warm-up:\n`)
    console.log('| asked as | p50 ms | min ms | max ms | batch / apart (p50) |')
    console.log('|---|---|---|---|---|')
    const row = (name: string, values: number[], ratio: string) =>
      console.log(`| ${name} | ${ms(median(values))} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} | ${ratio} |`)
    row('one batch', batchTimes, times(median(batchTimes), median(apartTimes)))
    row(`${DASHBOARD.length} GETs at once`, apartTimes, '')

    // Tokens: each response's `remaining` after the previous one's, one batch and one burst in turn.
    const first = await sendBatch(fresh)
    const second = await sendBatch(fresh)
    const apart = await sendApart(fresh)
    const burstRemaining = Math.min(...apart.responses.map(remainingOf))
    console.log(
      `\nRate-limit tokens drawn: one batch ${remainingOf(first.res) - remainingOf(second.res)}, ` +
        `${DASHBOARD.length} GETs at once ${remainingOf(second.res) - burstRemaining}`,
    )
    const same = second.results.filter((result, index) => JSON.stringify(result.body) === JSON.stringify(apart.bodies[index])).length
    console.log(`Batch results equal to their GET's answer: ${same} of ${DASHBOARD.length}`)
  })
}
