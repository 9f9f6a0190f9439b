// The combined tables' definition version: it names what builds them, so a breakdown added to the registry
// is a new version (and the days compacted before it are not read settled).
import assert from 'node:assert/strict'
import { BREAKDOWNS, COMPACTION_DEFINITION, breakdownTuples, definitionOf } from '../../queries/sessions/definition'
import { DIMENSIONS, type Dimension } from '../../queries/core/registry'

describe('compaction definition', () => {
  const all = Object.keys(DIMENSIONS) as Dimension[]

  it('is the version of the registry breakdowns and the build statements, as UInt64 decimal text', () => {
    assert.equal(COMPACTION_DEFINITION, definitionOf(BREAKDOWNS))
    assert.match(COMPACTION_DEFINITION, /^\d{1,20}$/)
    assert.ok(BigInt(COMPACTION_DEFINITION) < 2n ** 64n)
  })

  it('changes when a breakdown is added or removed, and with their order', () => {
    const without = all.filter((name) => name !== 'os_version')
    assert.notEqual(definitionOf(breakdownTuples(without)), COMPACTION_DEFINITION)
    assert.notEqual(definitionOf(breakdownTuples([...all].reverse())), COMPACTION_DEFINITION)
    assert.equal(definitionOf(breakdownTuples(all)), COMPACTION_DEFINITION)
  })
})
