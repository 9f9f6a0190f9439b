// Filter trees without an engine: the condition a tree compiles to, its caps and issue paths, and the
// published schema (/openapi.json) accepting the shapes the parser accepts.
import assert from 'node:assert/strict'
import Ajv from 'ajv'
import { compileTree, filterTreeSchema, parseFilterTree, sortTree, type FilterTree } from '../../queries/core/filter-tree'
import { metrics } from '../../queries/insights/metrics'
import { requestIssues } from '../support/request-issues'

const country = { name: 'country', operator: 'is', value: ['DE'] }
const signedUp = { performed: { name: 'signup' } }

function treeOf(value: unknown): FilterTree {
  const { tree, issues } = parseFilterTree(value)
  assert.deepEqual(issues, [])
  return tree as FilterTree
}

describe('filter trees', () => {
  it('compile a session leaf over the session row and a performed leaf as a lookup in the named scan of the performed sessions', () => {
    const { condition, sessionAttributes, performedSessions } = compileTree(treeOf({ or: [country, { not: signedUp }] }), 'set')
    // A session without a signup event is not in the scan at all, and "not signed up" holds for it.
    assert.equal(
      condition.sql,
      '((s_country IN {t0_v:Array(String)}) OR (NOT (session_id IN (SELECT session_id FROM performed_sessions WHERE NOT (NOT bitTest(mask, 0))))))',
    )
    assert.equal(
      performedSessions,
      `SELECT session_id, groupBitOr(bitShiftLeft(toUInt64((name = {p0_name:String})), 0)) AS mask
FROM events
WHERE project_id = {projectId:String}
  AND created_at >= {readFrom:DateTime64(3, 'UTC')}
  AND created_at < {readTo:DateTime64(3, 'UTC')}
  AND (name = {p0_name:String})
GROUP BY session_id`,
    )
    assert.deepEqual(condition.params, { t0_v: ['DE'], p0_name: 'signup' })
    assert.deepEqual(sessionAttributes, ['country'])
  })

  it('bind a repeated performed leaf once, and gather the performed children of an "and" or "or" into one lookup of their mask bits', () => {
    const purchased = { performed: { name: 'purchase', filters: [{ name: 'properties.price', operator: 'gt', value: [10] }] } }
    const { condition, performedSessions } = compileTree(
      treeOf({ and: [signedUp, country, { or: [purchased, { not: signedUp }] }] }),
      'set',
    )
    assert.equal(
      condition.sql,
      '((s_country IN {t0_v:Array(String)}) AND (session_id IN (SELECT session_id FROM performed_sessions WHERE (bitTest(mask, 0) AND (bitTest(mask, 1) OR (NOT bitTest(mask, 0)))))))',
    )
    assert.match(
      performedSessions ?? '',
      /^SELECT session_id, groupBitOr\(bitShiftLeft\(toUInt64\(\(name = \{p0_name:String\}\)\), 0\) \+ bitShiftLeft\(toUInt64\(\(name = \{p1_name:String\} AND [^]*\)\), 1\)\) AS mask\n/,
    )
    assert.deepEqual(Object.keys(condition.params), ['t0_v', 'p0_name', 'p1_name', 'p1_f0_key', 'p1_f0_v'])
  })

  it('name no scan where a statement groups each session and counts a performed leaf', () => {
    assert.equal(compileTree(treeOf(signedUp), 'grouped').performedSessions, null)
  })

  it('merge the "is" session leaves of one attribute under an "or" into one set lookup', () => {
    const device = (value: string) => ({ name: 'device', operator: 'is', value: [value] })
    const { condition } = compileTree(treeOf({ or: [device('mobile'), country, device('tablet')] }), 'set')
    assert.equal(condition.sql, '((s_device IN {t0_v:Array(String)}) OR (s_country IN {t1_v:Array(String)}))')
    assert.deepEqual(condition.params, { t0_v: ['mobile', 'tablet'], t1_v: ['DE'] })
  })

  it('count a performed leaf over grouped events where a statement groups each session (paths)', () => {
    const { condition } = compileTree(treeOf({ and: [country, signedUp] }), 'grouped')
    assert.equal(condition.sql, '((s_country IN {t0_v:Array(String)}) AND (countIf((name = {p0_name:String})) > 0))')
  })

  it('only restrict sessions: no event selection, and every view counts', () => {
    const sorted = sortTree(treeOf(signedUp))
    assert.deepEqual(
      [sorted.eventSelection, sorted.viewCondition, sorted.viewConditionOnPage, sorted.sessionAttributes],
      [null, null, true, []],
    )
  })

  it('400 past the caps and on misplaced filters, each issue at the path of its node', () => {
    const deep = { not: { not: { not: { not: { not: signedUp } } } } }
    const filters = JSON.stringify({
      or: [
        deep,
        { name: 'path', operator: 'is', value: ['/'] },
        { performed: { filters: [{ name: 'device', operator: 'is', value: ['mobile'] }] } },
      ],
    })
    assert.deepEqual(requestIssues(metrics, { filters }), [
      'filters.or.0.not.not.not: filters.or[0].not.not.not: a tree nests at most 4 levels of "and", "or" and "not"',
      'filters.or.1.name: filters.or[1].name: "path" is an event field: a tree\'s event conditions go inside a "performed" leaf',
      'filters.or.2.performed.filters.0.name: filters.or[2].performed.filters[0].name: "device" describes sessions: give it as a session leaf of the tree, not inside "performed"',
    ])
    const wide = JSON.stringify({
      and: [{ or: Array.from({ length: 26 }, () => country) }, { or: Array.from({ length: 25 }, () => country) }],
    })
    assert.ok(requestIssues(metrics, { filters: wide }).some((issue) => /at most 50 leaves/.test(issue)))
  })

  it('publish a schema that accepts the trees the parser accepts and refuses misshapen nodes', () => {
    const ajv = new Ajv({ strict: false })
    ajv.addSchema({ components: { schemas: { FilterTree: filterTreeSchema('#/components/schemas/FilterTree') } } }, 'doc')
    const validate = ajv.compile({ $ref: 'doc#/components/schemas/FilterTree' })
    for (const good of [
      country,
      signedUp,
      { or: [country, { not: signedUp }] },
      { performed: { filters: [{ name: 'path', operator: 'contains', value: ['a'] }] } },
    ]) {
      assert.deepEqual(parseFilterTree(good).issues, [])
      assert.ok(validate(good), JSON.stringify(good))
    }
    for (const bad of [
      { and: [] },
      { or: [country], and: [country] },
      { not: [country] },
      { performed: { name: 'x', when: 1 } },
      { name: 'country' },
    ]) {
      assert.notDeepEqual(parseFilterTree(bad).issues, [])
      assert.ok(!validate(bad), JSON.stringify(bad))
    }
  })
})
