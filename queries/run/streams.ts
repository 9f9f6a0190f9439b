// Named statements run together (a page and its count, then the profiles of its rows), and a resource's
// stream (pipeline.ts, StreamPlan): one statement read a block at a time or one chunk statement after
// another, the next block or chunk read while the current one is written.
import type { RowSets, StatementSet, StreamPlan } from '../core/pipeline'
import { runTogether } from './run-together'
import type { StatementRunner, StreamBlock } from './runner'

/** Every statement of a set, side by side; when one fails, the others are cancelled. */
export async function runStatements(
  runner: StatementRunner,
  statements: StatementSet,
  signal: AbortSignal,
  deadline?: AbortSignal,
): Promise<RowSets> {
  const entries = Object.entries(statements)
  const results = await runTogether(
    signal,
    entries.map(
      ([, compiled]) =>
        (shared: AbortSignal) =>
          runner.run<Record<string, unknown>>(compiled, { signal: shared, deadline }),
    ),
  )
  return Object.fromEntries(entries.map(([name], index) => [name, results[index].rows]))
}

export interface StreamRun {
  runner: StatementRunner
  plan: StreamPlan<unknown>
  /** The planned query. */
  query: unknown
  signal: AbortSignal
  /** Writes a piece of the stream (text, or UTF-8 bytes); resolves once the writer can take more (backpressure). */
  write(piece: string | Uint8Array): Promise<void>
  /** Called after each block (or chunk) with the rows written so far. */
  onProgress?(rows: number): void
}

/** Writes the whole stream (its head first) and returns the number of rows written. */
export async function writeStream(run: StreamRun): Promise<number> {
  const head = run.plan.head(run.query).text
  if (head) await run.write(head)
  const { stream } = run.runner
  const whole = stream && run.plan.compileStream(run.query)
  const blocks = whole && stream(whole, { signal: run.signal })
  return writeBlocks(run, blocks || chunksOf(run))
}

/**
 * Writes each block as it comes, asking for the next one while it is written (so the engine reads it
 * meanwhile); returns the rows written. Leaving, at the end or early, closes `blocks`.
 */
async function writeBlocks({ signal, write, onProgress }: StreamRun, blocks: AsyncIterator<StreamBlock>): Promise<number> {
  let written = 0
  try {
    let next = blocks.next()
    for (;;) {
      const block = await next
      if (block.done) return written
      next = blocks.next()
      // A write that fails (the client went away) leaves the next block unread; it must not surface as unhandled.
      next.catch(() => undefined)
      if (block.value.rows) {
        await write(block.value.bytes)
        written += block.value.rows
        onProgress?.(written)
      }
      if (signal.aborted) return written
    }
  } finally {
    // A read under way ends first (the request's signal stops it when it went away).
    void blocks.return?.().catch(() => undefined)
  }
}

/** The stream as keyset chunks: one chunk statement after another, with what follows from each, as blocks. */
async function* chunksOf({ runner, plan, query, signal }: StreamRun): AsyncGenerator<StreamBlock> {
  let after: unknown
  for (;;) {
    // A chunk reads as many rows as an export page may hold: heavy, it takes its turns beside the light questions.
    const { text } = await runner.runText(plan.compileChunk(query, after), { signal, lane: 'heavy' })
    const follow = await runStatements(runner, plan.followChunk(query, text), signal)
    const chunk = plan.shapeChunk(text, follow, query)
    yield { bytes: Buffer.from(chunk.text), rows: chunk.count }
    if (chunk.next === undefined) return
    after = chunk.next
  }
}
