// `npm run bench -- abuse [phase...]`: hostile load against the gateway in a child process, beside a second
// client whose latency is watched, all driven by the load-test kit's autocannon runner. Phases:
//   attack  (issue 8) one read client keeps 8 hostile requests in flight while the second asks /live and /ready;
//   heavy   8 heavy valid requests at once while the second asks /live;
//   flood, regex, nocache, behaviour, mix, step-regex, performed-tree, lockout  see abuse-attacks.ts and
//           abuse-cost-attacks.ts: each prints the second client's /live and /metrics p95 under the attack
//           beside its quiet baseline, and the statements its /metrics waited behind.
// All phases run when none is named.
import { startGateway, type ChildGateway, type LoopDelay } from './gateway'
import { percentile } from './percentile'
import { ATTACKS } from './abuse-attacks'
import {
  DATA_DIR,
  PORT,
  PROJECT,
  SECONDS,
  STATS_HEADER,
  countText,
  mergeStatuses,
  ms,
  prepareData,
  probe,
  query,
  statsRow,
  type Clients,
  type Headers,
} from './abuse-common'
import { startLoad, type Sample } from '../loadtest/runner'

/** The attack runs under a short limit, so its 504s come often and their timing can be read. */
const ATTACK_LIMIT_SECONDS = 5
const HOSTILE_IN_FLIGHT = 8
/** A client that goes away does so this long after sending (the runner's timeout drops the connection). */
const GONE_AFTER_SECONDS = 1
/** Hostile requests are not cut by the runner: the gateway's own limits end them. */
const HOSTILE_TIMEOUT_SECONDS = 300

let tags = 0
let refusals = 0
/** 20 alternation-heavy patterns, new ones every call (so no cache could answer twice). */
function regexFilter(): object[] {
  const tag = (tags += 1)
  return [{ name: 'path', operator: 'regex', value: Array.from({ length: 20 }, (_, i) => `^/(a|b|c|d|e)+[0-9]*${tag}-${i}(x|y|z)*$`) }]
}

const heavyPages = () => `/insights/${PROJECT}/pages?range=12m&filters=${query(regexFilter())}`
const REFUSED = [
  `/insights/${PROJECT}/metrics?range=12m&interval=minute`,
  `/insights/${PROJECT}/metrics?startDate=1970-01-01&interval=minute`,
  `/export/charts?projectId=${PROJECT}&series=${query([{ name: '*' }])}&interval=day&startDate=1000-01-01&endDate=1999-12-31`,
  `/export/events?projectId=${PROJECT}&limit=1&filters=${query([{ name: 'path', operator: 'regex', value: Array.from({ length: 100 }, (_, i) => `^(/(a|b|c|d)+)+${i}(x|y|z)*$`) }])}`,
  `/export/events?projectId=${PROJECT}&page=10000000&limit=1000`,
  `/insights/${PROJECT}/metrics?startDate=2024-01-01&endDate=9999-12-31`,
]

const GONE_KIND = `12m pages, gone after ${GONE_AFTER_SECONDS * 1000} ms`
const STREAM_KIND = 'whole-project NDJSON stream'
const REFUSED_KIND = 'refused (minute buckets, old dates, 100 regex, deep page, year 9999)'
/** Every kind of hostile request issue 8 names: the costly ones (now refused) and the heavy valid ones. */
const HOSTILE_KINDS: { kind: string; path: () => string }[] = [
  { kind: '12m pages, 20 regex', path: heavyPages },
  { kind: '12m metrics, 20 regex', path: () => `/insights/${PROJECT}/metrics?range=12m&filters=${query(regexFilter())}` },
  { kind: '12m referrer, 20 regex', path: () => `/insights/${PROJECT}/referrer?range=12m&filters=${query(regexFilter())}` },
  {
    kind: '12m chart by day, 20 regex',
    path: () =>
      `/export/charts?projectId=${PROJECT}&range=12m&interval=day&series=${query([{ name: 'screen_view', filters: regexFilter() }])}`,
  },
  { kind: 'export page, 20 regex', path: () => `/export/events?projectId=${PROJECT}&limit=1&filters=${query(regexFilter())}` },
  { kind: STREAM_KIND, path: () => `/export/events?projectId=${PROJECT}&format=ndjson` },
  { kind: REFUSED_KIND, path: () => REFUSED[(refusals += 1) % REFUSED.length] },
]

/** One request and its status and time, outside any load (the /live right after an attack). */
async function once(url: string, headers: Headers): Promise<{ status: number; ms: number }> {
  const started = performance.now()
  const res = await fetch(url, { headers })
  await res.arrayBuffer()
  return { status: res.status, ms: performance.now() - started }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function attack(gateway: ChildGateway, clients: Clients): Promise<void> {
  const baseline = await probe(gateway.url, { path: `/insights/${PROJECT}/live`, headers: clients.second, count: 10 }).done
  const readyBaseline = await probe(gateway.url, { path: '/ready', headers: {}, count: 10 }).done
  const samples: Sample[] = []
  // Seven connections take the hostile kinds in turn, each from its own place in the list; an eighth sends
  // the pages request its client abandons (the runner's timeout closes the connection after 1 s).
  let worker = 0
  const hostile = startLoad({
    url: gateway.url,
    headers: clients.hostile,
    connections: HOSTILE_IN_FLIGHT - 1,
    durationSeconds: SECONDS,
    timeoutSeconds: HOSTILE_TIMEOUT_SECONDS,
    connection: () => {
      let n = (worker += 1)
      return () => {
        const { kind, path } = HOSTILE_KINDS[(n += 1) % HOSTILE_KINDS.length]
        return { route: kind, path: path() }
      }
    },
    onAnswer: (sample) => samples.push(sample),
  })
  const gone = startLoad({
    url: gateway.url,
    headers: clients.hostile,
    connections: 1,
    durationSeconds: SECONDS,
    timeoutSeconds: GONE_AFTER_SECONDS,
    connection: () => () => ({ route: GONE_KIND, path: heavyPages() }),
  })
  // The second client starts once the attack is under way.
  await sleep(1_000)
  const [live, ready] = await Promise.all([
    probe(gateway.url, { path: `/insights/${PROJECT}/live`, headers: clients.second, seconds: SECONDS - 1 }).done,
    probe(gateway.url, { path: '/ready', headers: {}, seconds: SECONDS - 1 }).done,
  ])
  const [hostileResult, goneResult] = await Promise.all([hostile.done, gone.done])
  const after = await once(`${gateway.url}/insights/${PROJECT}/live`, clients.second)

  console.log(
    `\n## Attack: ${HOSTILE_IN_FLIGHT} hostile requests in flight from one read client for ${SECONDS} s, QUARRY_MAX_EXECUTION_SECONDS=${ATTACK_LIMIT_SECONDS}\n`,
  )
  console.log(`| second client ${STATS_HEADER}\n|---|---|---|---|---|---|`)
  console.log(statsRow('/live, idle gateway', baseline.overall))
  console.log(statsRow('/ready, idle gateway', readyBaseline.overall))
  console.log(statsRow('/live during the attack', live.overall))
  console.log(statsRow('/ready during the attack', ready.overall))
  console.log(`\n| hostile kind ${STATS_HEADER}\n|---|---|---|---|---|---|`)
  for (const { kind } of HOSTILE_KINDS) console.log(statsRow(kind, hostileResult.routes[kind]))
  console.log(statsRow(GONE_KIND, goneResult.routes[GONE_KIND]))
  const timeouts = samples.filter((sample) => sample.status === 504).map((sample) => sample.ms)
  const refused = samples.filter((sample) => sample.route === REFUSED_KIND).map((sample) => sample.ms)
  console.log(
    `\n504s: ${timeouts.length}, the slowest after ${ms(Math.max(...timeouts))} ms (limit ${ATTACK_LIMIT_SECONDS * 1000} ms + 1 s = ${ATTACK_LIMIT_SECONDS * 1000 + 1000} ms)`,
  )
  console.log(
    `refused kinds: ${countText(hostileResult.routes[REFUSED_KIND]?.statuses ?? {})}, the slowest after ${ms(Math.max(...refused))} ms`,
  )
  console.log(
    `streams whose connection closed before the answer was complete (cut by a chunk's deadline): ${hostileResult.routes[STREAM_KIND]?.statuses.error ?? 0}`,
  )
  console.log(
    `statuses over all hostile requests (timeout = a client gone): ${countText(mergeStatuses(hostileResult.overall.statuses, goneResult.overall.statuses))}`,
  )
  console.log(`a /live right after the attack: ${after.status} in ${ms(after.ms)} ms`)
}

async function heavyLoad(gateway: ChildGateway, clients: Clients): Promise<void> {
  const solo: number[] = []
  await startLoad({
    url: gateway.url,
    headers: clients.hostile,
    connections: 1,
    amount: 3,
    timeoutSeconds: HOSTILE_TIMEOUT_SECONDS,
    connection: () => () => ({ route: 'heavy pages', path: heavyPages() }),
    onAnswer: (sample) => solo.push(sample.ms),
  }).done
  const liveSolo = await probe(gateway.url, { path: `/insights/${PROJECT}/live`, headers: clients.second, count: 10 }).done
  const heavy = startLoad({
    url: gateway.url,
    headers: clients.hostile,
    connections: HOSTILE_IN_FLIGHT,
    durationSeconds: SECONDS,
    timeoutSeconds: HOSTILE_TIMEOUT_SECONDS,
    connection: () => () => ({ route: 'heavy pages', path: heavyPages() }),
  })
  await sleep(1_000)
  const live = await probe(gateway.url, { path: `/insights/${PROJECT}/live`, headers: clients.second, seconds: SECONDS - 1 }).done
  const heavyResult = await heavy.done
  console.log(
    `\n## Heavy valid load: ${HOSTILE_IN_FLIGHT} at once of 12-month pages with a 20-pattern regex filter, for ${SECONDS} s (default limit)\n`,
  )
  console.log(`one such statement alone: ${solo.map(ms).join(', ')} ms (median ${ms(percentile(solo, 50))})`)
  console.log(`| client ${STATS_HEADER}\n|---|---|---|---|---|---|`)
  console.log(statsRow(`heavy pages (${HOSTILE_IN_FLIGHT} in flight)`, heavyResult.overall))
  console.log(statsRow('second client /live, idle', liveSolo.overall))
  console.log(statsRow('second client /live, under the load', live.overall))
}

function printLoopDelay(delay: LoopDelay | undefined): void {
  if (delay) console.log(`gateway event-loop delay over the phase: p50 ${delay.p50} ms, p99 ${delay.p99} ms, max ${delay.max} ms`)
}

const PHASES: Record<string, { env: Record<string, string>; run(gateway: ChildGateway, clients: Clients): Promise<void> }> = {
  attack: { env: { QUARRY_MAX_EXECUTION_SECONDS: String(ATTACK_LIMIT_SECONDS), QUARRY_RATE_LIMIT: '1000000' }, run: attack },
  heavy: { env: { QUARRY_RATE_LIMIT: '1000000' }, run: heavyLoad },
  ...ATTACKS,
}

export async function main(args: string[]): Promise<void> {
  const unknown = args.filter((phase) => !PHASES[phase])
  if (unknown.length) throw new Error(`unknown abuse phase(s) ${unknown.join(', ')}: ${Object.keys(PHASES).join(', ')}`)
  const clients = await prepareData()
  for (const name of args.length ? args : Object.keys(PHASES)) {
    const phase = PHASES[name]
    const gateway = await startGateway({ dataDir: DATA_DIR, port: PORT, env: phase.env })
    try {
      await phase.run(gateway, clients)
    } finally {
      printLoopDelay(await gateway.stop())
    }
  }
}
