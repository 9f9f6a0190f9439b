// The abuse bench's attacks of issue 40, each run by abuse-attacks.ts beside the second client:
//   mix            one client's 8 connections of 12-month pages with a 20-pattern regex, a 10-series weekly
//                  chart with 3 breakdowns over 12 months and a whole-project CSV export (no cache);
//   step-regex     funnels whose every step carries a regex filter of many patterns (a request over the
//                  regex budget is refused: the attack measures that it is refused cheaply);
//   performed-tree metrics whose filter tree holds `performed` leaves up to the leaf cap;
//   lockout        wrong secrets for a cold client's id from its address, and for other ids from other
//                  addresses (QUARRY_TRUST_PROXY=loopback, X-Forwarded-For), while the cold client asks with
//                  its right secret from its address.
import crypto from 'node:crypto'
import { MAX_TREE_LEAVES } from '../queries/core/filter-tree'
import { startLoad } from '../loadtest/runner'
import { ATTACK_TIMEOUT_SECONDS, IN_FLIGHT, PROJECT, SECONDS, SECOND_PROBES, hostileNoCache, query, type Attack } from './abuse-common'

let tags = 0
/** `patterns` alternation-heavy path patterns, new ones every call (so no cache could answer twice). */
function regexFilter(patterns: number): object {
  const tag = (tags += 1)
  return { name: 'path', operator: 'regex', value: Array.from({ length: patterns }, (_, i) => `^/(a|b|c|d|e)+[0-9]*${tag}-${i}(x|y|z)*$`) }
}

const EVENT_NAMES = ['screen_view', 'button_click', 'search', 'add_to_cart', 'purchase', 'signup']
/** Ten series: each event name, all events, and three filtered ones. */
const TEN_SERIES = [
  ...EVENT_NAMES.map((name) => ({ name })),
  { name: '*' },
  { name: 'screen_view', filters: [{ name: 'device', operator: 'is', value: ['mobile'] }] },
  { name: 'screen_view', filters: [{ name: 'path', operator: 'startsWith', value: ['/blog'] }] },
  { name: '*', filters: [{ name: 'country', operator: 'isNot', value: ['DE'] }] },
]
const MIX = [
  { route: '12m pages, 20 regex', path: () => `/insights/${PROJECT}/pages?range=12m&filters=${query([regexFilter(20)])}` },
  {
    route: '12m chart, 10 series by week, 3 breakdowns',
    path: () =>
      `/export/charts?projectId=${PROJECT}&range=12m&interval=week&series=${query(TEN_SERIES)}&breakdowns=${query([{ name: 'country' }, { name: 'browser' }, { name: 'os' }])}`,
  },
  { route: 'whole-project CSV export', path: () => `/export/events?projectId=${PROJECT}&format=csv` },
]
const mix: Attack = {
  describe: `one client's ${IN_FLIGHT} connections of no-cache ${MIX.map((kind) => kind.route).join(', ')}`,
  async start(gateway, clients) {
    let n = 0
    return hostileNoCache(gateway, clients, () => {
      const kind = MIX[(n += 1) % MIX.length]
      return { route: kind.route, path: kind.path() }
    })
  },
  async kinds(_gateway, clients) {
    return MIX.map((kind) => [{ route: kind.route, path: kind.path(), headers: clients.hostile }])
  },
}

/** Steps of the step-regex funnels, each an event with a regex filter of this many patterns. */
const STEP_PATTERNS = 20
const FUNNEL_STEPS = 5
const stepRegexFunnel = () =>
  `/insights/${PROJECT}/funnel?range=12m&steps=${query(Array.from({ length: FUNNEL_STEPS }, () => ({ name: 'screen_view', filters: [regexFilter(STEP_PATTERNS)] })))}`
const stepRegex: Attack = {
  describe: `one client's ${IN_FLIGHT} connections of 12-month funnels of ${FUNNEL_STEPS} steps, each with a ${STEP_PATTERNS}-pattern path regex (${FUNNEL_STEPS * STEP_PATTERNS} patterns a request)`,
  async start(gateway, clients) {
    return hostileNoCache(gateway, clients, () => ({ route: 'step-regex funnel', path: stepRegexFunnel() }))
  },
  async kinds(_gateway, clients) {
    return [[{ route: 'step-regex funnel', path: stepRegexFunnel(), headers: clients.hostile }]]
  },
}

/** A tree at the leaf cap: an `or` of `performed` leaves, each with one filter (two leaves each). */
const performedTreeMetrics = () => {
  const tag = (tags += 1)
  const leaves = Array.from({ length: Math.floor(MAX_TREE_LEAVES / 2) }, (_, i) => ({
    performed: { name: EVENT_NAMES[i % EVENT_NAMES.length], filters: [{ name: 'path', operator: 'contains', value: [`/${tag}-${i}`] }] },
  }))
  return `/insights/${PROJECT}/metrics?range=12m&filters=${query({ or: leaves })}`
}
const performedTree: Attack = {
  describe: `one client's ${IN_FLIGHT} connections of 12-month metrics with a tree of ${Math.floor(MAX_TREE_LEAVES / 2)} performed leaves (${MAX_TREE_LEAVES} leaves, the cap)`,
  async start(gateway, clients) {
    return hostileNoCache(gateway, clients, () => ({ route: 'performed-tree metrics', path: performedTreeMetrics() }))
  },
  async kinds(_gateway, clients) {
    return [[{ route: 'performed-tree metrics', path: performedTreeMetrics(), headers: clients.hostile }]]
  },
}

/** The cold client's address, and the other addresses the lock-out's wrong secrets come from. */
const COLD_ADDRESS = '127.0.0.2'
const OTHER_ADDRESSES = Array.from({ length: 6 }, (_, i) => `127.0.0.${i + 3}`)
const lockout: Attack = {
  describe: `cold-client lock-out: ${IN_FLIGHT - 1} connections of wrong secrets, for the cold client's id from its address (${COLD_ADDRESS}) and for random ids from ${OTHER_ADDRESSES.length} others, while the cold client asks /live with its right secret from ${COLD_ADDRESS}`,
  async start(gateway, clients) {
    let connection = 0
    return startLoad({
      url: gateway.url,
      connections: IN_FLIGHT,
      durationSeconds: SECONDS,
      timeoutSeconds: ATTACK_TIMEOUT_SECONDS,
      connection: () => {
        const index = connection++
        let n = 0
        if (index === 0)
          return () => ({
            route: 'the cold client, right secret',
            path: SECOND_PROBES.live,
            headers: { ...clients.cold, 'x-forwarded-for': COLD_ADDRESS },
          })
        return () => {
          const targeted = (n += 1) % 2 === 0
          const address = targeted ? COLD_ADDRESS : OTHER_ADDRESSES[(index + n) % OTHER_ADDRESSES.length]
          const id = targeted ? clients.cold['openpanel-client-id'] : crypto.randomUUID()
          return {
            route: targeted
              ? "wrong secrets for the cold client's id, from its address"
              : 'wrong secrets for random ids, from other addresses',
            path: SECOND_PROBES.live,
            headers: { 'x-forwarded-for': address, 'openpanel-client-id': id, 'openpanel-client-secret': `wrong-${n}` },
          }
        }
      },
    })
  },
}

export const COST_ATTACKS = { mix, stepRegex, performedTree, lockout }
