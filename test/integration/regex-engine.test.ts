// The gateway's regex check against the engine itself (issue 40 item 5): each pattern goes through the embedded
// engine's `match` and through the gateway's RE2 check, and both must give the verdict written here, which is
// what the engine answered when the list was made. The few patterns where they differ on purpose are listed apart.
import assert from 'node:assert/strict'
import { regexProblem } from '../../queries/core/regex-check'
import { startHarness, type Harness } from '../support/harness'

/** Patterns the engine compiles: RE2 syntax JavaScript lacks among them. */
const ACCEPTED = [
  '(?i)ABC',
  '(?P<n>a)',
  '(?<n>a)',
  'a{1000}',
  '(a{10}){100}',
  '\\pL',
  '\\p{Greek}',
  '[[:alpha:]]',
  '\\C',
  '\\Q.*\\E',
  '\\z',
  '(?U)a+',
  '(?s).',
  'x{,3}',
  '[]a]',
  'a]',
  '{',
  '\\x{10FFFF}',
  '^/blog/(a|b)$',
  '.{250}',
]

/** Patterns the engine refuses to compile (CANNOT_COMPILE_REGEXP), JavaScript syntax among them. */
const REFUSED = [
  'a{1001}',
  '(a{100}){100}',
  '\\cA',
  '\\p{Foo}',
  '[[:foo:]]',
  '(?x)a b',
  '^(?=a)b',
  '(a)\\1',
  '\\Z',
  '\\u0041',
  '(',
  '[a',
  'x{2,1}',
  'a**',
  '(?<n-a>a)',
  '\\x{110000}',
  '[z-a]',
  '(?#c)',
  '\\pL{1000}',
]

/**
 * Patterns the engine runs and the gateway refuses, each for its reason:
 * - the engine's analyzer reads a pattern as a plain substring when it meets an unmatched `)` or a trailing `\`
 *   before any metacharacter, and never gives it to RE2, which calls it invalid;
 * - the engine's RE2 knows scripts of Unicode 15 (`Kawi`) that the gateway's older RE2 does not;
 * - a pattern past the gateway's program cap (`\pL{100}`, `.{1000}`) is a cost the engine would pay.
 */
const REFUSED_BY_THE_GATEWAY_ONLY = [')', 'a)', 'a\\', '\\p{Kawi}', '\\pL{100}', '.{1000}']

describe('regex patterns: the gateway refuses exactly what the engine refuses', () => {
  let h: Harness

  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  /** Whether the engine compiles the pattern; any other failure than a regex's fails the test. */
  async function engineAccepts(pattern: string): Promise<boolean> {
    try {
      await h.runner.run({ template: 'test.regex', sql: "SELECT match('x', {p:String}) AS m", params: { p: pattern } })
      return true
    } catch (error) {
      assert.match(String((error as Error).message), /RE2 syntax/, `${pattern}: ${String(error)}`)
      return false
    }
  }

  it('agrees with the engine on every pattern of the list', async () => {
    for (const pattern of ACCEPTED) {
      assert.equal(await engineAccepts(pattern), true, `the engine compiles ${pattern}`)
      assert.equal(regexProblem(pattern), undefined, `the gateway accepts ${pattern}`)
    }
    for (const pattern of REFUSED) {
      assert.equal(await engineAccepts(pattern), false, `the engine refuses ${pattern}`)
      assert.notEqual(regexProblem(pattern), undefined, `the gateway refuses ${pattern}`)
    }
  })

  it('refuses the patterns the engine would read otherwise than RE2 or pay too much for', async () => {
    for (const pattern of REFUSED_BY_THE_GATEWAY_ONLY) {
      assert.equal(await engineAccepts(pattern), true, `the engine runs ${pattern}`)
      assert.notEqual(regexProblem(pattern), undefined, `the gateway refuses ${pattern}`)
    }
  })
})
