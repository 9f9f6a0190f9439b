// The import's statements as compiled: staging by generated table name (an Identifier parameter),
// and one INSERT into `events` that skips stored and repeated ids, squashed into one block.
import assert from 'node:assert/strict'
import { compileInner, compileTemplate } from '../../queries/core/compiled'
import { normalizedSql } from '../support/sql'

/** Statement text with comments dropped and every run of whitespace as one space. */
const flat = (sql: string) => normalizedSql(sql).replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim()

describe('import statements', () => {
  const stage = 'import_stage_1700000000000_0123456789ab'
  const params = { stage, projectId: 'shop' }
  const newEvents = compileInner('admin/import-new-events.sql', params)

  it('stages into a table named by a bound Identifier, never spliced', () => {
    const compiled = compileTemplate('admin/import-stage.sql', { stage })
    assert.equal(
      flat(compiled.sql),
      flat('CREATE TABLE {stage:Identifier} ENGINE = MergeTree ORDER BY line AS SELECT toUInt64(0) AS line, * FROM events LIMIT 0'),
    )
    assert.deepEqual(compiled.params, { stage })
  })

  it('moves the new events with one INSERT that skips stored ids and repeated ids, as one block', () => {
    const move = compileTemplate('admin/import-move.sql', params, { new_events: newEvents })
    assert.equal(
      flat(move.sql),
      flat(`INSERT INTO events
        SETTINGS min_insert_block_size_rows = 1000000000000, min_insert_block_size_bytes = 1000000000000000,
          distributed_foreground_insert = 1
        SELECT * EXCEPT (line)
        FROM (SELECT * FROM {stage:Identifier}
          WHERE id NOT IN (
            SELECT id FROM events
            WHERE project_id = {projectId:String}
              AND created_at >= (SELECT min(created_at) FROM {stage:Identifier})
              AND created_at <= (SELECT max(created_at) FROM {stage:Identifier}))
          ORDER BY line
          LIMIT 1 BY id)`),
    )
    assert.deepEqual(move.params, { stage, projectId: 'shop' })
  })

  it('counts the same selection it moves', () => {
    const count = compileTemplate('admin/import-count.sql', params, { new_events: newEvents })
    assert.ok(flat(count.sql).includes(flat(newEvents.sql)))
    assert.deepEqual(count.params, params, 'each param bound once')
  })
})
