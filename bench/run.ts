// `npm run bench [-- <mode>]`: a small dispatcher over the bench modes; `compare` is the default.
import { compare, seedLong } from './compare'
import { loadTable } from './load-table'

const MODES: Record<string, { describe: string; run: () => Promise<void> }> = {
  compare: { describe: 'gateway vs raw engine vs OpenPanel-shaped SQL, dashboard burst, cache, exports, 360/90-day ratio', run: compare },
  load: { describe: 'every endpoint at concurrency 1 and 8', run: loadTable },
  long: { describe: 'seed the 360-day dataset (4× the events) that the compare mode\'s ratio needs', run: seedLong },
}

const name = process.argv[2] ?? 'compare'
const mode = MODES[name]
if (!mode) {
  console.error(`Unknown bench mode "${name}". Modes:\n${Object.entries(MODES).map(([key, value]) => `  ${key}: ${value.describe}`).join('\n')}`)
  process.exit(2)
}
mode.run().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
