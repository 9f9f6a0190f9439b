// The start loop: builds a fresh data directory with the CLI (projects, imports in parts, each followed by
// a compaction), starts the gateway on it at once under a varied load (busy loops on the machine's cores),
// waits for `/ready`, reads `/metrics` and stops it; keeps every start that was not clean (never ready, no
// metrics, a signal, a non-zero exit, a crash printed) with the last lines the gateway logged (at debug).
// Bounded: `--runs` starts, each with a deadline. Options and use: bench/README.md, "start-loop"; run it
// under `ulimit -c unlimited` to keep a core of a crash in the run's directory.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { buildImportedDirectory } from '../test/support/imported-directory'
import { readMetrics, startGateway, stopGateway, waitReady } from '../test/support/gateway-process'

const READY_WITHIN_MS = 180_000
const TAIL_LINES = 40
const CRASH = /Hardening assertion|Segmentation fault|SIGSEGV|SIGABRT|fatal error/i

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    projects: { type: 'string', default: '4' },
    parts: { type: 'string', default: '2' },
    sessions: { type: 'string', default: '200' },
    days: { type: 'string', default: '3' },
    out: { type: 'string', default: path.join(os.tmpdir(), 'quarry-start-loop') },
  },
})
const runs = Number(values.runs)
const out = values.out as string

/** `count` processes spinning on a core each, until killed. */
function busyLoops(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
}

interface Outcome {
  run: number
  busy: number
  readySeconds?: number
  metrics: boolean
  exit: string
  crashed: boolean
}

/** Lines of the loop's own: runCliIn takes console.log over while a CLI command runs. */
const say = (line: string) => void process.stdout.write(`${line}\n`)

/** Builds run `run`'s fresh directory; returns it and how long it took. */
async function build(run: number): Promise<{ dir: string; seconds: number }> {
  const dir = path.join(out, `run-${run}`)
  fs.rmSync(dir, { recursive: true, force: true })
  const started = performance.now()
  await buildImportedDirectory(dir, {
    projects: Number(values.projects),
    parts: Number(values.parts),
    sessionsPerPart: Number(values.sessions),
    days: Number(values.days),
    seed: run,
    from: new Date(Date.now() - 30 * 86_400_000),
  })
  return { dir, seconds: (performance.now() - started) / 1000 }
}

/** Starts the gateway on `dir` beside `busy` busy loops, waits for /ready, reads /metrics, stops it. */
async function startOn(run: number, dir: string, busy: number): Promise<Outcome> {
  const loops = busyLoops(busy)
  const started = performance.now()
  const gateway = await startGateway(dir, { LOG_LEVEL: 'debug' })
  try {
    const ready = await waitReady(gateway, READY_WITHIN_MS)
    const readySeconds = ready ? (performance.now() - started) / 1000 : undefined
    const metrics = ready && (await readMetrics(gateway)) !== undefined
    const { code, signal } = await stopGateway(gateway)
    const crashed = signal !== null || code !== 0 || CRASH.test(gateway.output()) || !ready || !metrics
    const exit = signal ? `signal ${signal}` : `code ${code}`
    fs.writeFileSync(path.join(dir, 'gateway.log'), gateway.output())
    if (crashed) {
      const tail = gateway.output().trimEnd().split('\n').slice(-TAIL_LINES).join('\n')
      say(`run ${run}: NOT CLEAN (${exit}, ready ${ready}, metrics ${metrics}); kept ${dir}; the gateway's last lines:\n${tail}`)
    } else {
      fs.rmSync(dir, { recursive: true, force: true })
    }
    return { run, busy, readySeconds, metrics, exit, crashed }
  } finally {
    for (const loop of loops) loop.kill('SIGKILL')
  }
}

async function main() {
  fs.mkdirSync(out, { recursive: true })
  const outcomes: Outcome[] = []
  // The next directory is built while the gateway starts on this one: that build is load of its own,
  // beside no, one or two busy cores in turn.
  let next = build(1)
  for (let run = 1; run <= runs; run += 1) {
    const { dir, seconds } = await next
    next = run < runs ? build(run + 1) : Promise.resolve({ dir: '', seconds: 0 })
    next.catch(() => undefined)
    const outcome = await startOn(run, dir, run % 3)
    outcomes.push(outcome)
    say(
      `run ${run}/${runs}: built in ${seconds.toFixed(1)} s, busy cores ${outcome.busy}, ` +
        `${outcome.readySeconds === undefined ? 'never ready' : `ready in ${outcome.readySeconds.toFixed(1)} s`}, ` +
        `metrics ${outcome.metrics ? 'ok' : 'NO'}, stopped with ${outcome.exit}${outcome.crashed ? ', NOT CLEAN' : ''}`,
    )
  }
  const crashed = outcomes.filter((outcome) => outcome.crashed)
  const ready = outcomes.flatMap((outcome) => (outcome.readySeconds === undefined ? [] : [outcome.readySeconds])).sort((a, b) => a - b)
  say(
    `${outcomes.length} starts on fresh imports: ${crashed.length} not clean${crashed.length ? ` (runs ${crashed.map((outcome) => outcome.run).join(', ')})` : ''}; ` +
      `ready in ${ready[0]?.toFixed(1)}..${ready.at(-1)?.toFixed(1)} s (median ${ready[Math.floor(ready.length / 2)]?.toFixed(1)} s)`,
  )
  process.exitCode = crashed.length ? 1 : 0
}

void main()
