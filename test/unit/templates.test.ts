import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { compileTemplate } from '../../queries/compiled'
import { checkBinding, loadTemplate } from '../../queries/templates'

const SQL_DIR = path.join(__dirname, '..', '..', 'sql')
const TEMPLATE_DIRS = ['insights', 'control', 'seed', 'admin']
const KNOWN_TYPES = /^(String|Identifier|UUID|UInt32|UInt64|Array\((String|Float64)\)|DateTime64\(3(, 'UTC')?\))$/

const templates = TEMPLATE_DIRS.flatMap((dir) =>
  fs
    .readdirSync(path.join(SQL_DIR, dir))
    .filter((file) => file.endsWith('.sql'))
    .map((file) => `${dir}/${file}`),
)

describe('SQL templates', () => {
  it('finds the templates', () => {
    assert.ok(templates.length >= 10, templates.join(', '))
  })

  for (const file of templates) {
    it(`${file} has a header, typed placeholders and no spliced values`, () => {
      const template = loadTemplate(file)
      assert.match(template.text, /^-- @name \S+$/m)
      assert.match(template.text, /^-- @returns .+$/m)
      for (const [name, type] of template.placeholders) {
        assert.match(type, KNOWN_TYPES, `${file}: {${name}:${type}}`)
        const uses = [...template.text.matchAll(new RegExp(`\\{${name}:([^{}]+?)\\}`, 'g'))].map((m) => m[1])
        assert.ok(uses.every((use) => use === type), `${file}: ${name} is bound with one type (${uses.join(', ')})`)
      }
      assert.doesNotMatch(template.text.replace(/^--.*$/gm, ''), /\$\{/, 'no JavaScript interpolation')
    })
  }

  it('refuses to compile with an unbound placeholder or an unused value', () => {
    assert.throws(() => compileTemplate('insights/live.sql', { projectId: 'p', since: 'x' }), /unbound placeholders \[now\]/)
    assert.throws(() => compileTemplate('insights/live.sql', { projectId: 'p', since: 'x', now: 'y', extra: 1 }), /unused params \[extra\]/)
    assert.throws(() => checkBinding('t', 'SELECT {a:String}', {}), /unbound placeholders \[a\]/)
  })

  it('refuses a marker fragment that redefines a param of the statement', () => {
    assert.throws(
      () => compileTemplate('insights/dimension.sql', { projectId: 'p', rowsToRead: 1, offset: 0 }, { prefix: { sql: "''", params: { offset: 5 } } }),
      /Fragment param offset collides/,
    )
  })

  it('refuses to compile while a marker is left unfilled', () => {
    assert.throws(() => compileTemplate('insights/dimension.sql', { projectId: 'p', rowsToRead: 1, offset: 0 }), /marker @\w+ not filled/)
  })
})
