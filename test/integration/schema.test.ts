// On a server, migrating is a one-shot step: a gateway (or a CLI command) that finds the schema behind
// migrates nothing and refuses with a message naming the migrations and the command; embedded, the
// process that owns the data directory migrates it.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { SchemaBehindError, listMigrations, migrate, prepareSchema } from '../../server/admin/migrate'
import { loadConfig } from '../../server/config'
import { openEngine, type Engine } from '../../server/engine'

describe('the schema at startup', function () {
  this.timeout(60_000)
  let engine: Engine

  before(async () => {
    engine = await openEngine(loadConfig({ QUARRY_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-schema-')) }).engine)
  })
  after(() => engine.close())

  /** The same engine, as a gateway in server mode sees it. */
  const asServer = (): Engine => ({ ...engine, settings: { ...engine.settings, mode: 'server' } })
  const tables = async () =>
    (
      await engine.client
        .query({ query: 'SELECT name FROM system.tables WHERE database = currentDatabase()', format: 'JSONEachRow' })
        .then((rs) => rs.json<{ name: string }>())
    ).map((row) => row.name)

  it('refuses on a server whose schema is behind, naming the migrations and the one-shot command, and migrates nothing', async () => {
    await assert.rejects(prepareSchema(asServer()), (error: unknown) => {
      assert.ok(error instanceof SchemaBehindError)
      assert.match(error.message, new RegExp(`${listMigrations().length} migration\\(s\\) not applied \\(001_source_tables, `))
      assert.match(error.message, /npm run cli -- migrate/)
      return true
    })
    assert.deepEqual(await tables(), [], 'nothing created')
  })

  it('serves on a server once the one-shot step has migrated, and migrates an embedded directory itself', async () => {
    await migrate(engine)
    assert.deepEqual(await prepareSchema(asServer()), [])
    assert.deepEqual(await prepareSchema(engine), [], 'embedded: already up to date')
    assert.ok((await tables()).includes('events'))
  })
})
