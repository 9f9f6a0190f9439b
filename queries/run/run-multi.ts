// Runs a multi-statement resource (pipeline.ts): its statements together, then those that follow from
// their rows, and shapes the answer; or its stream, one statement read a block at a time or one chunk
// statement after another, the next block or chunk read while the current one is written.
import type { AnyMultiResource, Answer, RowSets, StatementSet } from '../core/pipeline'
import { runTogether } from './run-together'
import type { StatementRunner, StreamBlock } from './runner'

/** Every statement of a set, side by side; when one fails, the others are cancelled. */
export async function runStatements(runner: StatementRunner, statements: StatementSet, signal: AbortSignal, deadline?: AbortSignal): Promise<RowSets> {
  const entries = Object.entries(statements)
  const results = await runTogether(
    signal,
    entries.map(([, compiled]) => (shared: AbortSignal) => runner.run<Record<string, unknown>>(compiled, { signal: shared, deadline })),
  )
  return Object.fromEntries(entries.map(([name], index) => [name, results[index].rows]))
}

export interface MultiRun {
  runner: StatementRunner
  resource: AnyMultiResource
  /** The planned query. */
  query: unknown
  signal: AbortSignal
}

/**
 * The answer of a resource that is not streamed. Its statements, and those that follow from their rows,
 * share one time limit (`deadline`, the request's).
 */
export async function answerMulti({ runner, resource, query, signal }: MultiRun, deadline?: AbortSignal): Promise<Answer> {
  const first = await runStatements(runner, resource.compile(query), signal, deadline)
  const followed = await runStatements(runner, resource.follow(query, first), signal, deadline)
  return resource.shape({ ...first, ...followed }, query)
}

export interface StreamRun extends MultiRun {
  /** Writes a piece of the stream (text, or UTF-8 bytes); resolves once the writer can take more (backpressure). */
  write(piece: string | Uint8Array): Promise<void>
  /** Called after each block (or chunk) with the rows written so far. */
  onProgress?(rows: number): void
}

/** Writes the whole stream (its head first) and returns the number of rows written. */
export async function streamMulti(run: StreamRun): Promise<number> {
  const head = run.resource.head(run.query).text
  if (head) await run.write(head)
  const { stream } = run.runner
  const whole = stream && run.resource.compileStream(run.query)
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
async function* chunksOf({ runner, resource, query, signal }: StreamRun): AsyncGenerator<StreamBlock> {
  let after: unknown
  for (;;) {
    const { text } = await runner.runText(resource.compileChunk(query, after), { signal })
    const follow = await runStatements(runner, resource.followChunk(query, text), signal)
    const chunk = resource.shapeChunk(text, follow, query)
    yield { bytes: Buffer.from(chunk.text), rows: chunk.count }
    if (chunk.next === undefined) return
    after = chunk.next
  }
}
