// The lines of a file, read as a stream and each held only up to a byte limit: a longer line is reported
// by its number and length, never kept whole, so one endless line cannot exhaust the process.

/** A line as UTF-8 text (its `\r\n` ending dropped), or one over the limit, by its length in bytes. */
export type FileLine = { number: number; text: string } | { number: number; tooLongBytes: number }

/** The lines of `chunks` (a file's bytes) numbered from 1; a last line without a newline counts too. */
export async function* readLines(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<FileLine> {
  let parts: Buffer[] = []
  let length = 0
  let number = 0
  const keep = (piece: Buffer) => {
    length += piece.length
    if (length <= maxBytes) parts.push(piece)
    else parts = []
  }
  const finish = (): FileLine => {
    number += 1
    const line =
      length > maxBytes ? { number, tooLongBytes: length } : { number, text: Buffer.concat(parts).toString('utf8').replace(/\r$/, '') }
    parts = []
    length = 0
    return line
  }
  for await (const bytes of chunks) {
    let from = 0
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, from)) {
      keep(bytes.subarray(from, at))
      yield finish()
      from = at + 1
    }
    keep(bytes.subarray(from))
  }
  if (length > 0) yield finish()
}
