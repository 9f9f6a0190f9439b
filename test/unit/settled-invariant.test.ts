// The settled check's invariant: partial session rows are only ever added, except by writers that
// invalidate the compactions of the days they touch (docs/design/sessions.md). A statement that deletes,
// rewrites or empties `sessions` is one of the known writers below, each of which invalidates.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'

const SQL = path.join(__dirname, '..', '..', 'sql')
const ROOT = path.join(__dirname, '..', '..')
/** What removes or rewrites partial rows: a delete, an update, a truncate or a drop of `sessions`. */
const REWRITES_SESSIONS =
  /\b(ALTER\s+TABLE\s+(\{\{table\s+)?sessions\b[^;]*\b(DELETE|UPDATE)\b|DELETE\s+FROM\s+sessions\b|TRUNCATE\s+TABLE\s+(IF\s+EXISTS\s+)?(\{\{table\s+)?sessions\b)/i

/** Each statement that rewrites partial rows, and the code that runs it and must invalidate around it. */
const KNOWN_WRITERS: Record<string, string> = {
  'admin/import-resession-clear.sql': 'server/admin/importer.ts',
}

function sqlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? sqlFiles(full) : entry.name.endsWith('.sql') ? [path.relative(SQL, full)] : []
  })
}

describe('the settled check invariant', () => {
  it("lists every statement that removes or rewrites partial session rows, and each one's runner invalidates the days it touches", () => {
    const writers = sqlFiles(SQL).filter((file) =>
      REWRITES_SESSIONS.test(fs.readFileSync(path.join(SQL, file), 'utf8').replace(/--.*$/gm, '')),
    )
    assert.deepEqual(
      writers.sort(),
      Object.keys(KNOWN_WRITERS).sort(),
      'a new writer of sessions must invalidate compactions (admin/compact-invalidate.sql)',
    )
    for (const [file, runner] of Object.entries(KNOWN_WRITERS)) {
      const code = fs.readFileSync(path.join(ROOT, runner), 'utf8')
      assert.ok(code.includes(file) && code.includes('admin/compact-invalidate.sql'), `${runner} runs ${file} and must invalidate`)
    }
  })
})
