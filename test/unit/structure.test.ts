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

  it('imports nothing upward: the query core not the run stage', async () => {
    const graph = await madge(path.join(ROOT, 'queries'), { fileExtensions: ['ts'], baseDir: ROOT })
    const upward = Object.entries(graph.obj()).flatMap(([file, imports]) =>
      imports.filter((target) => file.startsWith('queries/core/') && target.startsWith('queries/run/')).map((target) => `${file} -> ${target}`),
    )
    assert.deepEqual(upward, [])
  })

  it('keeps the HTTP code and the admin code apart, both below the entry point (server/main.ts) that runs them', async () => {
    const graph = await madge(path.join(ROOT, 'server'), { fileExtensions: ['ts'], baseDir: ROOT })
    const family = (file: string) => /^server\/(http|admin)\//.exec(file)?.[1] ?? (file === 'server/main.ts' ? 'main' : 'shared')
    const allowed: Record<string, string[]> = {
      main: ['main', 'http', 'admin', 'shared'],
      http: ['http', 'shared'],
      admin: ['admin', 'shared'],
      shared: ['shared'],
    }
    const across = Object.entries(graph.obj()).flatMap(([file, imports]) =>
      imports.filter((target) => target.startsWith('server/') && !allowed[family(file)].includes(family(target))).map((target) => `${file} -> ${target}`),
    )
    assert.deepEqual(across, [])
  })
})
