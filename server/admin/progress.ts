// Progress of a long CLI job (seed, import, export) through cli-progress: a live bar with rows, rows/s and
// ETA on a terminal, and a plain line every few seconds (plus a last one) when the output is not a TTY.
// Nothing is written before the first update, so a job that fails its checks prints no progress.
import { Format, Presets, SingleBar, type GenericFormatter } from 'cli-progress'

export interface ProgressOptions {
  label: string
  /** Rows expected in all; without it, progress shows rows and rows/s only. */
  total?: number
  stream?: NodeJS.WriteStream
  /** How often a plain line is written when the stream is not a terminal. */
  plainEveryMs?: number
}

export interface Progress {
  update(rows: number): void
  /** Ends the display; `outcome` replaces "done in ..." when the job did not do what it read (an import that refused its lines). */
  done(outcome?: string): void
}

const count = new Intl.NumberFormat('en-US')

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?'
  const whole = Math.ceil(seconds)
  if (whole < 60) return `${whole}s`
  const minutes = Math.floor(whole / 60)
  if (minutes < 60) return `${minutes}m${String(whole % 60).padStart(2, '0')}s`
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`
}

/** One progress line: `label [bar] 42% | 4,200,000/10,000,000 rows | 350,000 rows/s | ETA 17s`. */
export function formatProgress(input: {
  label: string
  rows: number
  total?: number
  elapsedMs: number
  bar?: string
  outcome?: string
}): string {
  const { label, rows, total, elapsedMs, bar, outcome } = input
  const rate = elapsedMs > 0 ? (rows * 1000) / elapsedMs : 0
  const parts = [label]
  if (total !== undefined) {
    const share = total > 0 ? Math.min(rows / total, 1) : 1
    parts[0] = `${label}${bar === undefined ? '' : ` ${bar}`} ${Math.floor(share * 100)}%`
    parts.push(`${count.format(rows)}/${count.format(total)} rows`)
  } else {
    parts.push(`${count.format(rows)} rows`)
  }
  parts.push(`${count.format(Math.round(rate))} rows/s`)
  if (outcome !== undefined) parts.push(outcome)
  else if (total !== undefined)
    parts.push(
      rows >= total ? `done in ${formatSeconds(elapsedMs / 1000)}` : `ETA ${rate > 0 ? formatSeconds((total - rows) / rate) : '?'}`,
    )
  return parts.join(' | ')
}

export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr
  const tty = Boolean(stream.isTTY)
  let since = 0
  let rows = 0
  let outcome: string | undefined
  const line: GenericFormatter = (barOptions, params) =>
    formatProgress({
      label: options.label,
      rows,
      total: options.total,
      elapsedMs: (params.stopTime ?? Date.now()) - since,
      bar: tty && options.total !== undefined ? Format.BarFormat(Math.min(params.progress, 1), barOptions) : undefined,
      outcome,
    })
  const bar = new SingleBar(
    {
      stream,
      format: line,
      // TRICKY: without noTTYOutput, cli-progress writes nothing at all to a pipe or a file.
      noTTYOutput: true,
      notTTYSchedule: options.plainEveryMs ?? 5000,
      // TRICKY: a hidden cursor stays hidden after Ctrl-C unless cli-progress traps SIGINT, and a trap
      // would stop Node from exiting on it; so the cursor stays visible.
      hideCursor: false,
      // A terminal keeps the last bar; a pipe already has the last line.
      clearOnComplete: !tty,
      barsize: 24,
    },
    Presets.shades_classic,
  )
  let started = false
  return {
    update(value: number) {
      rows = value
      if (!started) {
        started = true
        since = Date.now()
        bar.start(options.total ?? 0, 0)
      }
      bar.update(options.total === undefined ? 0 : Math.min(value, options.total))
    },
    done(ended?: string) {
      outcome = ended
      bar.stop()
    },
  }
}
