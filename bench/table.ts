// Mode `table`: `/table` with two dimensions and five metrics against one breakdown over the same 30-day
// window (target ≤ 1.2×), through the gateway, fresh answers (`Cache-Control: no-cache`) timed interleaved in
// one run. Beside them, the questions that say where a gap comes from: the table with the breakdown's own
// figures by its one dimension (settled sessions against the breakdown's rollup), and the two-dimension table
// without `visitors` (the exact distinct count).
import { get, interleaved, ms, times } from './compare'
import { WINDOW } from './questions'
import { PROJECT } from './setup'
import { withTimedGateway } from './timed-gateway'

const RUNS = Number(process.env.QUARRY_BENCH_TABLE_RUNS ?? 3)

const windowed = (route: string, params: Record<string, string> = {}) =>
  `/insights/${PROJECT}/${route}?${new URLSearchParams({ startDate: WINDOW.startDate, endDate: WINDOW.endDate, ...params })}`

const FIVE = 'visitors,sessions,pageviews,bounce_rate,avg_session_duration'

const QUESTIONS = {
  'table: country × device, five metrics': windowed('table', { dimensions: 'country,device', metrics: FIVE }),
  'breakdown: country': windowed('country'),
  "table: country, the breakdown's four figures": windowed('table', {
    dimensions: 'country',
    metrics: 'sessions,pageviews,bounce_rate,avg_session_duration',
  }),
  'table: country × device, four metrics (no visitors)': windowed('table', {
    dimensions: 'country,device',
    metrics: 'sessions,pageviews,bounce_rate,avg_session_duration',
  }),
}

export async function main(): Promise<void> {
  await withTimedGateway('sessions', async ({ fresh }) => {
    const names = Object.keys(QUESTIONS) as (keyof typeof QUESTIONS)[]
    console.log(`Medians of interleaved rounds (fresh answers), ${RUNS} runs; each ratio against the breakdown of the same run.\n`)
    console.log(`| run | ${names.map((name) => `${name} p50 ms`).join(' | ')} | table / breakdown (target ≤ 1.2×) |`)
    console.log(`|---|${names.map(() => '---|').join('')}---|`)
    for (let run = 0; run < RUNS; run += 1) {
      const medians = await interleaved(names.map((name) => () => get(QUESTIONS[name], fresh)))
      console.log(`| ${run + 1} | ${medians.map(ms).join(' | ')} | ${times(medians[0], medians[1])} |`)
    }
  })
}
