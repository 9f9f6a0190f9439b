// The code's shape: imports run one way, with no cycle between modules (issue 10), and only the sessions wing
// knows how sessions are assembled (issue 41).
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import madge from 'madge'

const ROOT = path.join(__dirname, '..', '..')

/** The names that tell how a session is assembled: the combined tables, the settled days, the regrouped range. */
const SESSION_ASSEMBLY = [
  'sessions_settled',
  'page_views_settled',
  'session_rollup',
  'page_rollup',
  'session_compactions',
  'settledDays',
  'regroupFrom',
]

/**
 * Who may name them: the wing, the compaction that builds the combined tables, the migrations that create them
 * and the data version that watches them.
 */
const MAY_NAME_ASSEMBLY = [
  /^queries\/sessions\//,
  /^sql\/sessions\//,
  /^server\/admin\/compact[^/]*\.ts$/,
  /^sql\/admin\/compact[^/]*\.sql$/,
  /^sql\/migrations\//,
  /^server\/admin\/migrate\.ts$/,
  /^queries\/run\/data-version\.ts$/,
  /^sql\/control\/data-version\.sql$/,
]

/** Every file under the given folders of the repository, as paths relative to it. */
const filesUnder = (folders: string[]): string[] =>
  folders.flatMap((folder) =>
    fs
      .readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .map((file) => `${folder}/${file.split(path.sep).join('/')}`)
      .filter((file) => fs.statSync(path.join(ROOT, file)).isFile()),
  )

/** `file: word, word` for each file outside `allowed` that names one of `words` (a whole word). */
function namesOutside(files: string[], words: string[], allowed: RegExp[]): string[] {
  return files
    .filter((file) => !allowed.some((pattern) => pattern.test(file)))
    .flatMap((file) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
      const named = words.filter((word) => new RegExp(`\\b${word}\\b`).test(text))
      return named.length ? [`${file}: ${named.join(', ')}`] : []
    })
}

describe('code structure', () => {
  it('has no import cycle in server/ or queries/', async () => {
    const graph = await madge([path.join(ROOT, 'server'), path.join(ROOT, 'queries')], { fileExtensions: ['ts'], baseDir: ROOT })
    assert.deepEqual(graph.circular(), [])
  })

  it('keeps the query families free of the HTTP and admin code', async () => {
    const graph = await madge(path.join(ROOT, 'queries'), { fileExtensions: ['ts'], baseDir: ROOT })
    const outward = Object.entries(graph.obj()).flatMap(([file, imports]) =>
      imports.filter((target) => target.startsWith('server/')).map((target) => `${file} -> ${target}`),
    )
    assert.deepEqual(outward, [])
  })

  it('imports nothing upward: the query core not the run stage', async () => {
    const graph = await madge(path.join(ROOT, 'queries'), { fileExtensions: ['ts'], baseDir: ROOT })
    const upward = Object.entries(graph.obj()).flatMap(([file, imports]) =>
      imports
        .filter((target) => file.startsWith('queries/core/') && target.startsWith('queries/run/'))
        .map((target) => `${file} -> ${target}`),
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
      imports
        .filter((target) => target.startsWith('server/') && !allowed[family(file)].includes(family(target)))
        .map((target) => `${file} -> ${target}`),
    )
    assert.deepEqual(across, [])
  })

  it('keeps how sessions are assembled in the sessions wing: no other file names the combined tables, settled days or regrouped range', () => {
    assert.deepEqual(namesOutside(filesUnder(['queries', 'server', 'sql', 'bench']), SESSION_ASSEMBLY, MAY_NAME_ASSEMBLY), [])
  })
})
