// Progress output: the line's figures, plain lines on a pipe, and silence before the first update.
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { createProgress, formatProgress } from '../../server/admin/progress'

function pipe(): { stream: NodeJS.WriteStream; text: () => string } {
  const stream = new PassThrough()
  let text = ''
  stream.on('data', (chunk: Buffer) => void (text += chunk.toString()))
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text }
}

describe('progress', () => {
  it('shows rows, rows/s and the ETA from the average rate', () => {
    assert.equal(
      formatProgress({ label: 'seed', rows: 2_500_000, total: 10_000_000, elapsedMs: 5_000 }),
      'seed 25% | 2,500,000/10,000,000 rows | 500,000 rows/s | ETA 15s',
    )
    assert.equal(
      formatProgress({ label: 'seed', rows: 1_000, total: 1_000_000, elapsedMs: 1_000 }),
      'seed 0% | 1,000/1,000,000 rows | 1,000 rows/s | ETA 16m39s',
    )
    assert.equal(formatProgress({ label: 'seed', rows: 10, total: 10, elapsedMs: 2_000 }), 'seed 100% | 10/10 rows | 5 rows/s | done in 2s')
    assert.equal(formatProgress({ label: 'seed', rows: 0, total: 10, elapsedMs: 0 }), 'seed 0% | 0/10 rows | 0 rows/s | ETA ?')
  })

  it('shows rows and rows/s only when the total is unknown', () => {
    assert.equal(formatProgress({ label: 'export', rows: 120_000, elapsedMs: 2_000 }), 'export | 120,000 rows | 60,000 rows/s')
  })

  it('writes plain lines, one at the start and one at the end, to a stream that is not a terminal', () => {
    const out = pipe()
    const progress = createProgress({ label: 'import', total: 300, stream: out.stream })
    progress.update(0)
    progress.update(150)
    progress.update(300)
    progress.done()
    const lines = out.text().split('\n').filter(Boolean)
    assert.equal(lines.length, 2, out.text())
    assert.match(lines[0], /^import 0% \| 0\/300 rows \| 0 rows\/s \| ETA \?$/)
    assert.match(lines[1], /^import 100% \| 300\/300 rows \| [\d,]+ rows\/s \| done in \d+s$/)
    assert.doesNotMatch(out.text(), /\x1b\[/, 'no terminal escape codes')
  })

  it('ends with what happened instead of "done" when the job refused what it read', () => {
    const out = pipe()
    const progress = createProgress({ label: 'import', total: 3, stream: out.stream })
    progress.update(0)
    progress.update(3)
    progress.done('refused: 3 bad line(s), nothing imported')
    const last = out.text().split('\n').filter(Boolean).at(-1)
    assert.match(last ?? '', /^import 100% \| 3\/3 rows \| [\d,]+ rows\/s \| refused: 3 bad line\(s\), nothing imported$/)
    assert.doesNotMatch(out.text(), /done/)
  })

  it('writes nothing when no update came (a job that failed its checks)', () => {
    const out = pipe()
    createProgress({ label: 'seed', total: 10, stream: out.stream }).done()
    assert.equal(out.text(), '')
  })
})
