// Issue 31's attacks (and issue 40's, abuse-cost-attacks.ts), each on its own gateway, each watched from a second client that asks /live and
// a no-cache 30-day /metrics: first on the quiet gateway (its baseline), then under the attack. Printed:
// the second client's p95 under the attack beside the baseline, what the attack itself got, and (but for
// the flood) each kind of the attack's requests alone on the quiet gateway: the /metrics p95 under the
// attack, less its quiet p95, in units of the longest of them is how many statements it waited for.
//   flood    wrong credentials from 8 addresses (QUARRY_TRUST_PROXY=loopback, each connection's own
//            X-Forwarded-For: 127.0.0.2-9), half for ids nobody has, half for the second client's id;
//   regex    8 at once of the largest regex request the gateway accepts: a filter at the exported
//            per-request caps (MAX_REQUEST_REGEX_PATTERNS patterns, MAX_REQUEST_REGEX_CHARACTERS characters
//            in all), and as many such filters as the gateway takes (found by asking it: one, while the
//            caps count the whole request);
//   nocache  8 clients × 8 connections of 12-month breakdowns with a path regex, Cache-Control: no-cache;
//   behaviour 8 connections of one client's 12-month funnels (a `*` step: the exact fold), 24-week
//            retention and 10-step paths, Cache-Control: no-cache.
import crypto from 'node:crypto'
import { MAX_REQUEST_REGEX_CHARACTERS, MAX_REQUEST_REGEX_PATTERNS } from '../queries/core/regex-budget'
import { scrape } from '../loadtest/prometheus'
import { startLoad, type LoadResult, type RequestSpec } from '../loadtest/runner'
import {
  ATTACK_TIMEOUT_SECONDS,
  HEAVY_CLIENTS,
  IN_FLIGHT,
  PORT,
  PROJECT,
  SECONDS,
  SECOND_PROBES,
  countText,
  hostileNoCache,
  ms,
  probe,
  query,
  type Attack,
  type Clients,
  type Headers,
} from './abuse-common'
import { COST_ATTACKS } from './abuse-cost-attacks'
import { printOvertaking, printWaitedBehind, statementTimes } from './abuse-records'
import type { ChildGateway } from './gateway'

const FLOOD_ADDRESSES = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 2}`)

/** The second client's /live and /metrics, both at once, until `seconds` pass or `count` answers each. */
async function secondClient(
  gateway: ChildGateway,
  clients: Clients,
  bound: { seconds?: number; count?: number },
): Promise<{ live: LoadResult; metrics: LoadResult }> {
  const [live, metrics] = await Promise.all([
    probe(gateway.url, { path: SECOND_PROBES.live, headers: clients.second, ...bound }).done,
    probe(gateway.url, { path: SECOND_PROBES.metrics, headers: clients.second, ...bound }).done,
  ])
  return { live, metrics }
}

const flood: Attack = {
  describe: `credential flood: ${IN_FLIGHT} connections from ${FLOOD_ADDRESSES.length} addresses (${FLOOD_ADDRESSES[0]}-${FLOOD_ADDRESSES.at(-1)}), wrong secrets for random ids and for the second client's id`,
  async start(gateway, clients) {
    let connection = 0
    return startLoad({
      url: gateway.url,
      connections: IN_FLIGHT,
      durationSeconds: SECONDS,
      timeoutSeconds: ATTACK_TIMEOUT_SECONDS,
      connection: () => {
        const address = FLOOD_ADDRESSES[connection++ % FLOOD_ADDRESSES.length]
        let n = 0
        return () => {
          const targeted = (n += 1) % 2 === 0
          return {
            route: targeted ? "the second client's id" : 'random ids',
            path: SECOND_PROBES.live,
            headers: {
              'x-forwarded-for': address,
              'openpanel-client-id': targeted ? clients.second['openpanel-client-id'] : crypto.randomUUID(),
              'openpanel-client-secret': `wrong-${n}`,
            },
          }
        }
      },
    })
  },
}

let tags = 0
/**
 * One regex filter at the per-request caps: MAX_REQUEST_REGEX_PATTERNS alternation-heavy patterns that total
 * MAX_REQUEST_REGEX_CHARACTERS characters, each with a new tag (no cache answers twice). The padding is `.` so that a
 * pattern can be cut to any length and stay valid.
 */
function maximalRegexFilter(): object {
  const tag = (tags += 1)
  const length = Math.floor(MAX_REQUEST_REGEX_CHARACTERS / MAX_REQUEST_REGEX_PATTERNS)
  const value = Array.from({ length: MAX_REQUEST_REGEX_PATTERNS }, (_, i) => {
    const head = `^/(a|b|c|d|e)+[0-9]*${tag}-${i}`
    const tail = '(x|y|z)*$'
    return `${head}${'.'.repeat(Math.max(length - head.length - tail.length, 0))}${tail}`
  })
  return { name: 'path', operator: 'regex', value }
}

const regexPages = (filters: number, window: string) =>
  `/insights/${PROJECT}/pages?${window}&filters=${query(Array.from({ length: filters }, maximalRegexFilter))}`

/**
 * The most maximal filters the gateway accepts in one request, found by bisection over 1..50 (the filter
 * list's own limit) on a day with no events: the request is validated as under the attack, but costs nothing.
 */
async function largestAcceptedFilters(gateway: ChildGateway, headers: Headers): Promise<number> {
  const accepted = async (filters: number) => {
    const res = await fetch(`${gateway.url}${regexPages(filters, 'startDate=2000-01-01&endDate=2000-01-01')}`, { headers })
    await res.arrayBuffer()
    if (res.status !== 200 && res.status !== 400 && res.status !== 431) throw new Error(`probing the regex caps: ${res.status}`)
    return res.status === 200
  }
  if (!(await accepted(1))) throw new Error('the gateway refuses even one filter at the per-request regex caps')
  let [low, high] = [1, 50]
  while (low < high) {
    const middle = Math.ceil((low + high) / 2)
    if (await accepted(middle)) low = middle
    else high = middle - 1
  }
  return low
}

let regexFilters = 0
const regex: Attack = {
  get describe() {
    return `${IN_FLIGHT} at once of the largest regex request the caps accept: 12-month pages with ${regexFilters} filter(s) of ${MAX_REQUEST_REGEX_PATTERNS} patterns, ${MAX_REQUEST_REGEX_CHARACTERS} characters each`
  },
  async start(gateway, clients) {
    regexFilters ||= await largestAcceptedFilters(gateway, clients.hostile)
    return hostileNoCache(gateway, clients, () => ({ route: 'maximal regex pages', path: regexPages(regexFilters, 'range=12m') }))
  },
  async kinds(gateway, clients) {
    regexFilters ||= await largestAcceptedFilters(gateway, clients.hostile)
    return [[{ route: 'maximal regex pages', path: regexPages(regexFilters, 'range=12m'), headers: clients.hostile }]]
  },
}

const HEAVY_BREAKDOWNS = ['referrer', 'country', 'browser', 'device', 'os', 'city', 'utm_source', 'region']
const PATH_REGEX = [{ name: 'path', operator: 'regex', value: ['^/(blog|docs|products?)/[a-z-]+$'] }]
const heavyBreakdown = (dimension: string) => `/insights/${PROJECT}/${dimension}?range=12m&filters=${query(PATH_REGEX)}`
const nocache: Attack = {
  describe: `${HEAVY_CLIENTS} clients × ${IN_FLIGHT} connections of no-cache 12-month breakdowns with a path regex filter`,
  async start(gateway, clients) {
    let connection = 0
    return startLoad({
      url: gateway.url,
      connections: HEAVY_CLIENTS * IN_FLIGHT,
      durationSeconds: SECONDS,
      timeoutSeconds: ATTACK_TIMEOUT_SECONDS,
      connection: () => {
        const index = connection++
        const headers = { ...clients.heavy[index % HEAVY_CLIENTS], 'cache-control': 'no-cache' }
        let n = index
        return () => {
          const dimension = HEAVY_BREAKDOWNS[(n += 1) % HEAVY_BREAKDOWNS.length]
          return { route: `client ${(index % HEAVY_CLIENTS) + 1}`, path: heavyBreakdown(dimension), headers }
        }
      },
    })
  },
  async kinds(_gateway, clients) {
    // A client's breakdowns asked at once wait for their turn together and run as one joined statement.
    return [
      HEAVY_BREAKDOWNS.slice(0, 1).map((dimension) => ({ route: dimension, path: heavyBreakdown(dimension), headers: clients.heavy[0] })),
      HEAVY_BREAKDOWNS.map((dimension) => ({
        route: `${HEAVY_BREAKDOWNS.length} breakdowns at once`,
        path: heavyBreakdown(dimension),
        headers: clients.heavy[0],
      })),
    ]
  },
}

/** The heaviest behaviour questions a client may ask: each caps its cost, and the time limit ends it. */
const BEHAVIOUR_QUESTIONS = [
  {
    route: 'funnel',
    path: `/insights/${PROJECT}/funnel?range=12m&windowHours=720&steps=${query([{ name: '*' }, { name: 'screen_view' }, { name: '*' }])}`,
  },
  { route: 'retention', path: `/insights/${PROJECT}/retention?range=12m&period=week&periods=24&criteria=on_or_after&detail=true` },
  { route: 'paths', path: `/insights/${PROJECT}/paths?range=12m&steps=10&limit=100` },
]
const behaviour: Attack = {
  describe: `one client's ${IN_FLIGHT} connections of no-cache 12-month funnels, retention and paths`,
  async start(gateway, clients) {
    let n = 0
    return hostileNoCache(gateway, clients, () => BEHAVIOUR_QUESTIONS[(n += 1) % BEHAVIOUR_QUESTIONS.length])
  },
  async kinds(_gateway, clients) {
    return BEHAVIOUR_QUESTIONS.map((question) => [{ ...question, headers: clients.hostile }])
  },
}

/** Each kind's time alone on the quiet gateway (no cache): its requests sent at once, until the last answer. */
async function alone(gateway: ChildGateway, kinds: RequestSpec[][]): Promise<{ route: string; ms: number }[]> {
  const times: { route: string; ms: number }[] = []
  for (const requests of kinds) {
    const started = performance.now()
    const statuses = await Promise.all(
      requests.map(async (spec) => {
        const res = await fetch(`${gateway.url}${spec.path}`, { headers: { ...spec.headers, 'cache-control': 'no-cache' } })
        await res.arrayBuffer()
        return res.status
      }),
    )
    times.push({ route: `${requests[0].route} (${[...new Set(statuses)].join(', ')})`, ms: performance.now() - started })
  }
  return times
}

/** The gateway's Prometheus listener in the attack phases, for the statements' own time under the attack. */
const METRICS_PORT = PORT + 1

/** Baseline, attack, and the second client during it; prints one table for the phase. */
async function underAttack(name: string, attack: Attack, gateway: ChildGateway, clients: Clients): Promise<void> {
  const quiet = await secondClient(gateway, clients, { count: 20 })
  const kinds = attack.kinds ? await alone(gateway, await attack.kinds(gateway, clients)) : []
  const metricsUrl = `http://127.0.0.1:${METRICS_PORT}/metrics`
  const before = await scrape(metricsUrl)
  await gateway.takeStatements()
  const load = await attack.start(gateway, clients)
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const loud = await secondClient(gateway, clients, { seconds: SECONDS - 2 })
  const attacked = await load.done
  const after = await scrape(metricsUrl)
  const finished = await gateway.takeStatements()
  const statements = before && after ? statementTimes(before, after) : []
  const p95 = (result: LoadResult) =>
    `${ms(result.overall.latency.p95)} (${result.overall.requests} answers${result.overall.errors ? `; ${countText(result.overall.statuses)}` : ''})`
  console.log(`\n## Attack "${name}": ${attack.describe}, for ${SECONDS} s\n`)
  console.log('| second client | p95 ms, quiet gateway | p95 ms, under the attack |\n|---|---|---|')
  console.log(`| /live | ${p95(quiet.live)} | ${p95(loud.live)} |`)
  console.log(`| /metrics (30 days, no-cache) | ${p95(quiet.metrics)} | ${p95(loud.metrics)} |`)
  // The second client's extra /metrics p95 under the attack, read against the attack's statements below.
  const extra = loud.metrics.overall.latency.p95 - quiet.metrics.overall.latency.p95
  if (kinds.length) {
    // "Waits at most one statement already running": the /metrics p95 under the attack, less its quiet p95,
    // against the longest of the attack's requests alone.
    const longest = Math.max(...kinds.map((kind) => kind.ms))
    console.log(`\nthe attack's requests alone on the quiet gateway: ${kinds.map((kind) => `${kind.route} ${ms(kind.ms)} ms`).join(', ')}`)
    console.log(
      `/metrics p95 under the attack less its quiet p95: ${ms(extra)} ms = ${(extra / longest).toFixed(2)} × the longest attack request alone`,
    )
  }
  if (statements.length) {
    const longest = statements[0]
    console.log(
      `statements in the engine over the attack (mean time each): ${statements.map((row) => `${row.template} ${row.count} × ${ms(row.meanMs)} ms`).join(', ')}`,
    )
    console.log(
      `/metrics p95 under the attack less its quiet p95 = ${(extra / longest.meanMs).toFixed(2)} × the longest statement's mean time under the attack (${longest.template})`,
    )
  }
  printOvertaking(finished, clients.second['openpanel-client-id'])
  printWaitedBehind(finished, clients.second['openpanel-client-id'])
  console.log(
    `\nthe attack: ${attacked.overall.requests} requests, ${attacked.overall.rps.toFixed(1)}/s, p50 ${ms(attacked.overall.latency.p50)} ms, p95 ${ms(attacked.overall.latency.p95)} ms; ${countText(attacked.overall.statuses)}`,
  )
  for (const [route, stats] of Object.entries(attacked.routes))
    console.log(`  ${route}: ${stats.requests} requests, ${countText(stats.statuses)}`)
}

const phase = (name: string, attack: Attack, env: Record<string, string> = {}) => ({
  env: { QUARRY_RATE_LIMIT: '1000000', QUARRY_METRICS_PORT: String(METRICS_PORT), ...env },
  run: (gateway: ChildGateway, clients: Clients) => underAttack(name, attack, gateway, clients),
})

export const ATTACKS = {
  flood: phase('flood', flood, { QUARRY_TRUST_PROXY: 'loopback' }),
  regex: phase('regex', regex),
  nocache: phase('nocache', nocache),
  behaviour: phase('behaviour', behaviour),
  mix: phase('mix', COST_ATTACKS.mix),
  'step-regex': phase('step-regex', COST_ATTACKS.stepRegex),
  'performed-tree': phase('performed-tree', COST_ATTACKS.performedTree),
  lockout: phase('lockout', COST_ATTACKS.lockout, { QUARRY_TRUST_PROXY: 'loopback' }),
}
