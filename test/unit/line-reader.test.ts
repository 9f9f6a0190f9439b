import assert from 'node:assert/strict'
import { readLines, type FileLine } from '../../server/admin/line-reader'

/** The lines of `text` cut into chunks of `size` bytes, read with a limit of `maxBytes`. */
async function linesOf(text: string, size: number, maxBytes: number): Promise<FileLine[]> {
  const bytes = Buffer.from(text, 'utf8')
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size)
  }
  const lines: FileLine[] = []
  for await (const line of readLines(chunks(), maxBytes)) lines.push(line)
  return lines
}

describe('readLines', () => {
  it('numbers the lines across chunk boundaries, drops \\r\\n endings and keeps a last line without a newline', async () => {
    for (const size of [1, 2, 3, 7, 1024]) {
      assert.deepEqual(await linesOf('ab\r\n\ncdé€f\nlast', size, 100), [
        { number: 1, text: 'ab' },
        { number: 2, text: '' },
        { number: 3, text: 'cdé€f' },
        { number: 4, text: 'last' },
      ])
    }
    assert.deepEqual(await linesOf('one\n', 2, 100), [{ number: 1, text: 'one' }])
    assert.deepEqual(await linesOf('', 2, 100), [])
  })

  it('reports a line over the limit by its length in bytes, and reads on', async () => {
    for (const size of [1, 4, 64]) {
      assert.deepEqual(await linesOf('12345\n123456\n€€\nok', size, 5), [
        { number: 1, text: '12345' },
        { number: 2, tooLongBytes: 6 },
        { number: 3, tooLongBytes: 6 },
        { number: 4, text: 'ok' },
      ])
    }
  })
})
