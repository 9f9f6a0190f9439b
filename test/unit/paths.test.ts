// The repository names only what it holds: every path a source file, template, doc or test mentions
// exists (a moved file leaves no stale mention behind), and nothing cites a file outside the repository.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

const ROOT = path.join(__dirname, '..', '..')
const SCANNED = [
  'server',
  'queries',
  'sql',
  'test',
  'bench',
  'loadtest',
  'docs',
  'fixtures',
  'examples',
  'docker',
  '.ci',
  'README.md',
  'Dockerfile',
  'docker-compose.yml',
  'package.json',
]
const TEXT = /\.(ts|md|sql|ya?ml|json|xml)$|^(Dockerfile|run)$/
/** A path as the repository's texts write them: from the root, or from a folder of sql/, server/, queries/ or test/. */
const MENTION =
  /(?<![\w./-])((?:server|queries|sql|test|bench|loadtest|docs|fixtures|examples|docker|admin|insights|export|control|migrations|core|charts|behaviour|http|seed|reference|support|unit|integration|browser)\/[\w./-]*\w)/g
/** Where a mention may be resolved from, besides the mentioning file's own folder. */
const BASES = ['', 'sql', 'server', 'queries', 'test']
/** Written by the tests or built into the image, never checked in. */
const GENERATED = new Set(['test/artifacts'])

function files(entry: string): string[] {
  const full = path.join(ROOT, entry)
  if (!fs.existsSync(full)) return []
  if (fs.statSync(full).isFile()) return TEXT.test(path.basename(entry)) ? [entry] : []
  return fs.readdirSync(full).flatMap((name) => files(path.join(entry, name)))
}

function exists(mention: string, from: string): boolean {
  const candidates = [...BASES.map((base) => path.join(base, mention)), path.join(path.dirname(from), mention)]
  return candidates.some((candidate) =>
    [candidate, `${candidate}.ts`, candidate.replace(/\.js$/, '.ts')].some((name) => fs.existsSync(path.join(ROOT, name))),
  )
}

describe('paths the repository names', () => {
  const scanned = SCANNED.flatMap(files)

  it('all exist', () => {
    const stale: string[] = []
    for (const file of scanned) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8')
      for (const [, mention] of text.matchAll(MENTION)) {
        const clean = mention.replace(/\.+$/, '')
        if (!GENERATED.has(clean) && !exists(clean, file)) stale.push(`${file}: ${clean}`)
      }
    }
    assert.deepEqual(stale, [])
  })

  it('cite nothing outside the repository', () => {
    const outside = scanned.filter((file) =>
      /DESIGN\.md|DESIGN §|DESIGN \d|\.\.\/shared\b/.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
    )
    assert.deepEqual(
      outside.filter((file) => file !== 'test/unit/paths.test.ts'),
      [],
    )
  })
})

describe('the documentation', () => {
  /** Markdown links to other files (not web addresses, not anchors of the same page), outside code blocks. */
  const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g
  const links = (text: string) =>
    [...text.replace(/^```[^]*?^```/gm, '').matchAll(LINK)].map(([, target]) => target).filter((target) => !/^([a-z]+:|#)/.test(target))

  it('links only to files that exist, from the README and every page of docs/ and bench/', () => {
    const pages = ['README.md', ...files('docs'), ...files('bench')].filter((file) => file.endsWith('.md'))
    const broken = pages.flatMap((page) =>
      links(fs.readFileSync(path.join(ROOT, page), 'utf8'))
        .filter((target) => !fs.existsSync(path.join(ROOT, path.dirname(page), decodeURI(target.replace(/#.*$/, '')))))
        .map((target) => `${page}: ${target}`),
    )
    assert.ok(pages.length > 10, `found only ${pages.length} pages`)
    assert.deepEqual(broken, [])
  })

  it('keeps the README for users: at most 300 lines', () => {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length
    assert.ok(lines <= 300, `README.md has ${lines} lines; move the detail to docs/`)
  })
})
