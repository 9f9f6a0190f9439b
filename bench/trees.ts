// Mode `trees`: filter trees against the flat filters that ask the same, through the gateway on the
// bench's 30-day window. Each pair is timed interleaved (fresh answers, no cache), in several runs.
import { PROJECT } from './setup'
import { get, interleaved, ms, times } from './compare'
import { withTimedGateway } from './timed-gateway'
import { WINDOW } from './questions'

const RUNS = Number(process.env.QUARRY_BENCH_TREE_RUNS ?? 3)

interface Pair {
  name: string
  target: string
  tree: object
  flat: object[]
}

const PAIRS: Pair[] = [
  {
    name: 'metrics: "or" of two session leaves vs one "is" of both values',
    target: '≤ 1.2×',
    tree: {
      or: [
        { name: 'device', operator: 'is', value: ['mobile'] },
        { name: 'device', operator: 'is', value: ['tablet'] },
      ],
    },
    flat: [{ name: 'device', operator: 'is', value: ['mobile', 'tablet'] }],
  },
  {
    name: 'metrics: a performed leaf vs the flat event filter',
    target: '≤ 1×',
    tree: { performed: { name: 'signup' } },
    flat: [{ name: 'name', operator: 'is', value: ['signup'] }],
  },
]

const metricsUrl = (filters: object) =>
  `/insights/${PROJECT}/metrics?startDate=${WINDOW.startDate}&endDate=${WINDOW.endDate}&filters=${encodeURIComponent(JSON.stringify(filters))}`

export async function main(): Promise<void> {
  await withTimedGateway('sessions', async ({ fresh }) => {
    console.log(`Medians per run of interleaved rounds (fresh answers), ${RUNS} runs; tree / flat per run.\n`)
    console.log('| question | target | tree p50 ms | flat p50 ms | tree / flat |')
    console.log('|---|---|---|---|---|')
    for (const pair of PAIRS) {
      const results: [number, number][] = []
      for (let run = 0; run < RUNS; run += 1) {
        const [tree, flat] = await interleaved([() => get(metricsUrl(pair.tree), fresh), () => get(metricsUrl(pair.flat), fresh)])
        results.push([tree, flat])
      }
      const join = (pick: (result: [number, number]) => string) => results.map(pick).join(' / ')
      console.log(
        `| ${pair.name} | ${pair.target} | ${join(([tree]) => ms(tree))} | ${join(([, flat]) => ms(flat))} | ${join(([tree, flat]) => times(tree, flat))} |`,
      )
    }
  })
}
