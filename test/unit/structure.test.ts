// The code's shape: imports run one way, with no cycle between modules (issue 10).
import assert from 'node:assert/strict'
import path from 'node:path'
import madge from 'madge'

const ROOT = path.join(__dirname, '..', '..')

describe('code structure', () => {
  it('has no import cycle in server/ or queries/', async () => {
    const graph = await madge([path.join(ROOT, 'server'), path.join(ROOT, 'queries')], { fileExtensions: ['ts'], baseDir: ROOT })
    assert.deepEqual(graph.circular(), [])
  })

  it('keeps the query families free of the HTTP and admin code', async () => {
    const graph = await madge(path.join(ROOT, 'queries'), { fileExtensions: ['ts'], baseDir: ROOT })
    const outward = Object.entries(graph.obj()).flatMap(([file, imports]) => imports.filter((target) => target.startsWith('server/')).map((target) => `${file} -> ${target}`))
    assert.deepEqual(outward, [])
  })

  it('imports nothing upward: the HTTP code not the admin code (but its entry point, which runs both), the query core not the run stage', async () => {
    const graph = await madge([path.join(ROOT, 'server'), path.join(ROOT, 'queries')], { fileExtensions: ['ts'], baseDir: ROOT })
    const upward = Object.entries(graph.obj()).flatMap(([file, imports]) =>
      imports
        .filter((target) => (file.startsWith('server/http/') && file !== 'server/http/main.ts' && target.startsWith('server/admin/')) || (file.startsWith('queries/core/') && target.startsWith('queries/run/')))
        .map((target) => `${file} -> ${target}`),
    )
    assert.deepEqual(upward, [])
  })
})
