// Runs a multi-statement resource (pipeline.ts): its statements together, then those that follow from
// their rows, and shapes the answer; or its stream, one statement read a block at a time or one chunk
// statement after another, the next block or chunk read while the current one is written.
import type { AnyMultiResource, Answer, RowSets, StatementSet } from './pipeline'
import { runTogether } from './run-together'
import type { StatementRunner, StreamBlock } from './run'

/** Every statement of a set, side by side; when one fails, the others are cancelled. */
export async function runStatements(runner: StatementRunner, statements: StatementSet, signal: AbortSignal): Promise<RowSets> {
  const entries = Object.entries(statements)
  const results = await runTogether(
    signal,
    entries.map(([, compiled]) => (shared: AbortSignal) => runner.run<Record<string, unknown>>(compiled, { signal: shared })),
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

/** The answer of a resource that is not streamed. */
export async function answerMulti({ runner, resource, query, signal }: MultiRun): Promise<Answer> {
  const first = await runStatements(runner, resource.compile(query), signal)
  const followed = await runStatements(runner, resource.follow(query, first), signal)
  return resource.shape({ ...first, ...followed }, query)
}

export interface StreamRun extends MultiRun {
  /** Writes a piece of the stream (text, or UTF-8 bytes); resolves once the writer can take more (backpressure). */
  write(piece: string | Uint8Array): Promise<void>
  /** Called after each chunk with the rows written so far. */
  onProgress?(rows: number): void
}

/** Writes the whole stream (its head first) and returns the number of rows written. */
export async function streamMulti(run: StreamRun): Promise<number> {
  const head = run.resource.head(run.query).text
  if (head) await run.write(head)
  const { stream } = run.runner
  const whole = stream && run.resource.compileStream(run.query)
  const blocks = whole && stream(whole, { signal: run.signal })
  return blocks ? streamBlocks(run, blocks) : streamChunks(run)
}

/** One statement read a block at a time, each block passed on as the engine wrote it; the next read while one is written. */
async function streamBlocks({ signal, write, onProgress }: StreamRun, blocks: AsyncIterableIterator<StreamBlock>): Promise<number> {
  let written = 0
  try {
    let next = blocks.next()
    for (;;) {
      const block = await next
      if (block.done) return written
      next = blocks.next()
      next.catch(() => undefined)
      if (block.value.rows) {
        await write(block.value.bytes)
        written += block.value.rows
        onProgress?.(written)
      }
      if (signal.aborted) return written
    }
  } finally {
    // Closes the stream; a read under way ends first (the request's signal stops it when it went away).
    void blocks.return?.().catch(() => undefined)
  }
}

/** One keyset chunk statement after another, with what follows from each; the next chunk read while one is written. */
async function streamChunks({ runner, resource, query, signal, write, onProgress }: StreamRun): Promise<number> {
  const fetchChunk = async (after: unknown) => {
    const { text } = await runner.runText(resource.compileChunk(query, after), { signal })
    const follow = await runStatements(runner, resource.followChunk(query, text), signal)
    return resource.shapeChunk(text, follow, query)
  }
  let next = fetchChunk(undefined)
  let written = 0
  for (;;) {
    const chunk = await next
    if (chunk.next !== undefined) {
      next = fetchChunk(chunk.next)
      // A write that fails (the client went away) leaves this chunk unread; it must not surface as unhandled.
      next.catch(() => undefined)
    }
    if (chunk.count) {
      await write(chunk.text)
      written += chunk.count
      onProgress?.(written)
    }
    if (chunk.next === undefined || signal.aborted) return written
  }
}
