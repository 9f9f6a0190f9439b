// A CSV chunk as the engine writes it (TabSeparatedRaw): three fields, then the records raw, tabs and
// line breaks inside them included.
import assert from 'node:assert/strict'
import { parseCsvChunk } from '../../queries/export/export-csv'

describe('CSV chunk', () => {
  it('reads the count and the last keyset, and keeps the records byte for byte', () => {
    const records = 'id,path\r\n1,"/a\tb"\r\n2,"multi\r\nline"\r\n'
    assert.deepEqual(parseCsvChunk(`2\t1709856000123\t0b4f7c1e-0000-4000-8000-000000000001\t${records}\n`), {
      rows: 2,
      lastAtMs: 1709856000123,
      lastId: '0b4f7c1e-0000-4000-8000-000000000001',
      text: records,
    })
  })

  it('reads an empty chunk', () => {
    assert.deepEqual(parseCsvChunk('0\t0\t\t\n'), { rows: 0, lastAtMs: 0, lastId: '', text: '' })
  })

  it('refuses output without its three leading fields', () => {
    assert.throws(() => parseCsvChunk('garbage\n'), /three leading fields/)
  })
})
