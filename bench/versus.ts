// `npm run bench -- versus --before DIR`: this checkout's gateway against another checkout's (an earlier
// commit, with its own node_modules) on copies of the same bench data, asked the same questions in one run:
// fresh answers (`Cache-Control: no-cache`) interleaved in a new order each round, then a repeated identical
// request answered from each one's cache. Every answer must be byte for byte the earlier one's.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { interleavedSamples, median, ms, times } from './compare'
import { startGateway, type ChildGateway } from './gateway'
import { percentile } from './percentile'
import { DASHBOARD, QUESTIONS } from './questions'
import { BENCH_GATEWAY_ENV, MAIN, PORT, PROJECT, openDataset, waitForAuth } from './setup'

const WINDOW = 'startDate=2025-12-02&endDate=2025-12-31'
const CACHE_REPEATS = 20

/** The bench's questions, and the session routes it does not time elsewhere. */
const ASKED: { name: string; url: string }[] = [
  ...QUESTIONS.map(({ name, url }) => ({ name, url })),
  { name: 'entry pages', url: `/insights/${PROJECT}/pages/entry_exit?mode=entry&${WINDOW}` },
  { name: 'exit pages', url: `/insights/${PROJECT}/pages/entry_exit?mode=exit&${WINDOW}` },
  { name: 'sessions list', url: `/insights/${PROJECT}/sessions?${WINDOW}` },
  {
    name: 'funnel, 3 steps',
    url: `/insights/${PROJECT}/funnel?${WINDOW}&steps=${encodeURIComponent(JSON.stringify(['screen_view', 'add_to_cart', 'purchase']))}`,
  },
]

function argument(args: string[], name: string): string | undefined {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}

/** The body of a fresh or cached answer, failing on anything but a 200. */
async function body(gateway: ChildGateway, url: string, headers: Record<string, string>): Promise<{ text: string; cache: string | null }> {
  const res = await fetch(`${gateway.url}${url}`, { headers })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`)
  return { text, cache: res.headers.get('x-cache') }
}

/** The p50 of a repeated identical request answered from the cache (each repeat must be a hit). */
async function cacheHits(gateway: ChildGateway, url: string, headers: Record<string, string>): Promise<number> {
  await body(gateway, url, headers)
  const samples: number[] = []
  for (let repeat = 0; repeat < CACHE_REPEATS; repeat += 1) {
    const started = performance.now()
    const { cache } = await body(gateway, url, headers)
    samples.push(performance.now() - started)
    if (cache !== 'hit') throw new Error(`${url}: a repeated request missed the cache`)
  }
  return percentile(samples, 50)
}

export async function main(args: string[]): Promise<void> {
  const beforeRoot = argument(args, '--before')
  if (!beforeRoot || !fs.existsSync(path.join(beforeRoot, 'bench', 'gateway.ts'))) {
    throw new Error('versus needs --before DIR: a checkout of the earlier commit with its node_modules installed')
  }
  const prepared = await openDataset(MAIN)
  await prepared.engine.close()
  const copy = `${MAIN.dir}-versus`
  fs.rmSync(copy, { recursive: true, force: true })
  execFileSync('cp', ['-a', MAIN.dir, copy])
  const before = await startGateway({ dataDir: copy, port: PORT + 1, env: BENCH_GATEWAY_ENV, root: path.resolve(beforeRoot) })
  const after = await startGateway({ dataDir: MAIN.dir, port: PORT, env: BENCH_GATEWAY_ENV })
  const auth = { 'openpanel-client-id': prepared.credentials.id, 'openpanel-client-secret': prepared.credentials.secret }
  const fresh = { ...auth, 'cache-control': 'no-cache' }
  try {
    await waitForAuth(auth, before.url)
    await waitForAuth(auth, after.url)
    const head = execFileSync('git', ['-C', path.resolve(beforeRoot), 'rev-parse', '--short', 'HEAD'])
      .toString()
      .trim()
    console.log(`before: ${head} (${beforeRoot}); after: this checkout. Fresh answers, interleaved; p50 ms over the rounds.`)
    console.log('| question | before p50 | after p50 | after / before | cache hit before p50 | cache hit after p50 |')
    console.log('|---|---|---|---|---|---|')
    const breakdowns = DASHBOARD.slice(2).map((url) => ({ name: url.split('/')[3].split('?')[0], url }))
    for (const { name, url } of [...ASKED, ...breakdowns.filter((asked) => !ASKED.some((other) => other.name === asked.name))]) {
      const [old, now] = await Promise.all([body(before, url, fresh), body(after, url, fresh)])
      if (old.text !== now.text)
        throw new Error(`${name}: the answers differ\nbefore: ${old.text.slice(0, 400)}\nafter:  ${now.text.slice(0, 400)}`)
      const [beforeTimes, afterTimes] = await interleavedSamples([() => body(before, url, fresh), () => body(after, url, fresh)])
      const [hitBefore, hitAfter] = [await cacheHits(before, url, auth), await cacheHits(after, url, auth)]
      const [p50Before, p50After] = [median(beforeTimes), median(afterTimes)]
      console.log(
        `| ${name} | ${ms(p50Before)} | ${ms(p50After)} | ${times(p50After, p50Before)} | ${hitBefore.toFixed(1)} | ${hitAfter.toFixed(1)} |`,
      )
    }
  } finally {
    await before.stop()
    await after.stop()
  }
}
