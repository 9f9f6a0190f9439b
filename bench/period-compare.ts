// Mode `period-compare`: `compare=previous` against the same question without it, through the gateway on the
// bench's 30-day window, fresh answers (no cache): metrics, pages and the referrer breakdown, each pair's runs
// interleaved in one run, medians and p95 with their ratios (target: at most 1.3×). Beside them, what the
// compared question costs asked alone (the previous window), to tell where a ratio above the target goes.
import { PROJECT } from './setup'
import { get, interleavedSamples, median, ms, times } from './compare'
import { percentile } from './percentile'
import { withTimedGateway } from './timed-gateway'
import { WINDOW } from './questions'

/** The 30 days before the bench window (2025-12-02 .. 2025-12-31): the window `compare=previous` asks. */
const PREVIOUS = { startDate: '2025-11-02', endDate: '2025-12-01' }

const url = (resource: string, window: { startDate: string; endDate: string }, extra = '') =>
  `/insights/${PROJECT}/${resource}?startDate=${window.startDate}&endDate=${window.endDate}${extra}`

interface Pair {
  name: string
  resource: string
  /** A GET that reads what the compared question reads. */
  alone(): { label: string; url: string }
}

// The compared questions keep their kept keys after the grouping, which no GET parameter says: the previous
// window's own first page, which reads what they read, stands for them.
const PAIRS: Pair[] = [
  { name: 'metrics', resource: 'metrics', alone: () => ({ label: 'previous window', url: url('metrics', PREVIOUS) }) },
  { name: 'pages', resource: 'pages', alone: () => ({ label: 'previous window, first page', url: url('pages', PREVIOUS) }) },
  { name: 'referrer', resource: 'referrer', alone: () => ({ label: 'previous window, first page', url: url('referrer', PREVIOUS) }) },
]

export async function main(): Promise<void> {
  await withTimedGateway('sessions', async ({ fresh }) => {
    console.log('Fresh answers (Cache-Control: no-cache), interleaved rounds; ratios compare / without.\n')
    console.log(
      '| question | without p50 ms | compare p50 ms | p50 ratio | without p95 ms | compare p95 ms | p95 ratio | compared alone | alone p50 ms |',
    )
    console.log('|---|---|---|---|---|---|---|---|---|')
    for (const pair of PAIRS) {
      const plain = url(pair.resource, WINDOW)
      const compared = `${plain}&compare=previous`
      const alone = pair.alone()
      const [without, withCompare, aloneTimes] = await interleavedSamples([
        () => get(plain, fresh),
        () => get(compared, fresh),
        () => get(alone.url, fresh),
      ])
      const p50 = [median(without), median(withCompare)]
      const p95 = [percentile(without, 95), percentile(withCompare, 95)]
      console.log(
        `| ${pair.name} | ${ms(p50[0])} | ${ms(p50[1])} | ${times(p50[1], p50[0])} | ${ms(p95[0])} | ${ms(p95[1])} | ${times(p95[1], p95[0])} | ${alone.label} | ${ms(median(aloneTimes))} |`,
      )
    }
  })
}
