// `npm run bench [-- <mode>]`: a small dispatcher over the bench modes; `compare` is the default.
import * as abuse from './abuse'
import * as batch from './batch'
import { compare, compareBehaviourOnly, seedLong } from './compare'
import * as discovery from './discovery'
import * as compaction from './compaction-load'
import * as fuzz from './fuzz'
import * as periodCompare from './period-compare'
import { loadTable } from './load-table'
import * as sessionsPages from './sessions-pages'
import * as trees from './trees'
import * as versus from './versus'

const MODES: Record<string, { describe: string; run: () => Promise<void> }> = {
  compare: { describe: 'gateway vs raw engine vs OpenPanel-shaped SQL, dashboard burst, cache, exports, 360/90-day ratio', run: compare },
  behaviour: {
    describe:
      'funnel, retention and paths against OpenPanel-shaped SQL, retention memory, 360/30-day ratios on the 360-day dataset (part of compare)',
    run: compareBehaviourOnly,
  },
  batch: {
    describe: 'the dashboard as one batch against the same 10 GETs at once (fresh, interleaved) and the rate-limit tokens each draws',
    run: batch.main,
  },
  load: { describe: 'every endpoint at concurrency 1 and 8', run: loadTable },
  long: {
    describe: 'seed the 360-day dataset (4× the events) that the 360-day ratios need (`long events`: only what the behaviour mode reads)',
    run: () => seedLong(process.argv.slice(3)),
  },
  abuse: {
    describe:
      "a hostile client beside a second one: its /live and /ready percentiles, 504 times, heavy valid load; a credential flood, maximal regex requests and 8 clients × 8 no-cache heavy requests, 12-month funnels, retention and paths, a mix of heavy pages, charts and a CSV export, step-regex funnels, performed trees and a cold client's lock-out against its /live and /metrics p95 (phases: attack heavy flood regex nocache behaviour mix step-regex performed-tree lockout)",
    run: () => abuse.main(process.argv.slice(3)),
  },
  compaction: {
    describe: 'questions while the gateway compacts settled days (a copy of the bench data): percentiles before and during',
    run: compaction.main,
  },
  discovery: {
    describe:
      'each discovery route (event names, property keys, property values) through the gateway, 30-day and 360-day windows interleaved, and the backfill of their summaries on a dataset seeded before them',
    run: discovery.main,
  },
  sessions: {
    describe:
      "entry and exit pages against the referrer breakdown, and the sessions list's first page and a page 1M sessions deep, through the gateway",
    run: sessionsPages.main,
  },
  trees: {
    describe:
      'metrics with filter trees against the flat filters that ask the same: an "or" of two session leaves, a performed leaf (medians interleaved, tree / flat)',
    run: trees.main,
  },
  versus: {
    describe:
      'this checkout against another (--before DIR, an earlier commit with node_modules) on copies of the same data: fresh answers interleaved, cache hits, answers compared byte for byte',
    run: () => versus.main(process.argv.slice(3)),
  },
  'period-compare': {
    describe: 'compare=previous against the same question without it (metrics, pages, referrer), fresh, interleaved: p50 and p95 ratios',
    run: periodCompare.main,
  },
  fuzz: {
    describe:
      '10,000 junk requests over every route and cache probes of charts: counts by status, no 5xx but 503/504, no crash, no cached answer unlike a fresh one',
    run: () => fuzz.main(process.argv.slice(3)),
  },
}

const name = process.argv[2] ?? 'compare'
const mode = MODES[name]
if (!mode) {
  console.error(
    `Unknown bench mode "${name}". Modes:\n${Object.entries(MODES)
      .map(([key, value]) => `  ${key}: ${value.describe}`)
      .join('\n')}`,
  )
  process.exit(2)
}
mode.run().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
