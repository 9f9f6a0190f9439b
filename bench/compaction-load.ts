// `npm run bench -- compaction`: questions while the gateway compacts. On a copy of the 90-day bench directory
// whose records of some settled days are removed (so that a compaction builds them again, as after late events),
// a gateway in a child process answers `country` over the 30-day window, asked by one connection of the
// load-test kit's runner at most 1000 / GAP_MS times a second, before and while it compacts; prints the
// latency percentiles of both phases for each round.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { QUESTIONS } from './questions'
import { BENCH_GATEWAY_ENV, MAIN, PORT, openDataset, waitForAuth } from './setup'
import { startGateway } from './gateway'
import { percentile } from './percentile'
import { startLoad, type Sample } from '../loadtest/runner'
import { COMPACTION_RECORDS } from '../queries/sessions/settled-days'

const ROUNDS = Number(process.env.QUARRY_BENCH_ROUNDS ?? 2)
/** Settled days of the bench window whose compaction the copy forgets: every other day of its first half. */
const DAYS = ['2025-12-03', '2025-12-05', '2025-12-07', '2025-12-09', '2025-12-11', '2025-12-13', '2025-12-15', '2025-12-17']
const GAP_MS = 20
const BEFORE_MS = 10_000
/** A round's load stops when its compaction ends; this bounds it should a compaction never end. */
const ROUND_LIMIT_SECONDS = 3_600
const QUESTION = QUESTIONS.find((question) => question.name === 'country')!

function summary(values: number[]): string {
  if (!values.length) return 'no answers'
  const ms = (p: number) => percentile(values, p).toFixed(0)
  return `${values.length} answers, p50 ${ms(50)} ms, p90 ${ms(90)}, p99 ${ms(99)}, max ${Math.max(...values).toFixed(0)}`
}

export async function main(): Promise<void> {
  const prepared = await openDataset(MAIN)
  await prepared.engine.close()
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-compaction-'))
  console.log(`copying ${MAIN.dir} to ${copy}...`)
  fs.cpSync(MAIN.dir, copy, { recursive: true })
  const gateway = await startGateway({ dataDir: copy, port: PORT + 3, env: BENCH_GATEWAY_ENV })
  const headers = {
    'openpanel-client-id': prepared.credentials.id,
    'openpanel-client-secret': prepared.credentials.secret,
    'cache-control': 'no-cache',
  }
  try {
    await waitForAuth(headers, gateway.url)
    console.log(
      `\n${QUESTION.name} asked by one client (one connection, at most ${1000 / GAP_MS} a second), ${BEFORE_MS / 1000} s before a compaction of ${DAYS.length} settled days and while it runs:`,
    )
    for (let round = 1; round <= ROUNDS; round += 1) {
      await gateway.command(
        `ALTER TABLE ${COMPACTION_RECORDS} DELETE WHERE day IN (${DAYS.map((day) => `'${day}'`).join(', ')}) SETTINGS mutations_sync = 2`,
      )
      const answers: Sample[] = []
      // The runner times answers from its own start, which is this one.
      const started = performance.now()
      const asking = startLoad({
        url: gateway.url,
        headers,
        connections: 1,
        rate: Math.round(1000 / GAP_MS),
        durationSeconds: ROUND_LIMIT_SECONDS,
        connection: () => () => ({ route: QUESTION.name, path: QUESTION.url }),
        onAnswer: (sample) => answers.push(sample),
      })
      // The first answers after the records went: the settled check and the engine's caches warm up.
      await new Promise((resolve) => setTimeout(resolve, BEFORE_MS))
      const from = performance.now() - started
      const report = await gateway.compact()
      const to = performance.now() - started
      asking.stop()
      const { overall } = await asking.done
      if (overall.errors) throw new Error(`${QUESTION.url} answered other than 200: ${JSON.stringify(overall.statuses)}`)
      const before = answers.filter((answer) => answer.at > BEFORE_MS / 2 && answer.at + answer.ms < from).map((answer) => answer.ms)
      const during = answers.filter((answer) => answer.at >= from && answer.at < to).map((answer) => answer.ms)
      console.log(`round ${round}: compacted ${report.days} day(s) in ${report.seconds.toFixed(1)} s`)
      console.log(`  before: ${summary(before)}`)
      console.log(`  during: ${summary(during)}`)
    }
  } finally {
    await gateway.stop()
    fs.rmSync(copy, { recursive: true, force: true })
  }
}
