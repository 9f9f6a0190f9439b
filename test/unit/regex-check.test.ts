// The gateway's RE2 check (queries/core/regex-check.ts) as a module: what it gives for the engine's syntax,
// and that a pattern which outgrows the WebAssembly heap leaves later checks working.
import assert from 'node:assert/strict'
import { MAX_REGEX_PROGRAM_BYTES, regexProblem } from '../../queries/core/regex-check'

describe('the RE2 check', () => {
  it('reads (?<name>...) as the engine does, and leaves look-behinds refused', () => {
    assert.equal(regexProblem('(?<year>[0-9]{4})'), undefined)
    assert.equal(regexProblem('\\(?<n>'), undefined, 'an escaped parenthesis, an optional one, then text')
    assert.match(regexProblem('(?<=a)b') ?? '', /invalid perl operator/)
    assert.match(regexProblem('(?<n-a>a)') ?? '', /invalid named capture group/)
  })

  it('says which JavaScript syntax RE2 lacks', () => {
    assert.equal(regexProblem('^(?=a)b'), 'invalid perl operator: (?= (look-arounds and back-references are not RE2 syntax)')
    assert.equal(regexProblem('(a)\\1'), 'invalid escape sequence: \\1 (look-arounds and back-references are not RE2 syntax)')
  })

  it('refuses a program past the cap with how to fix it', () => {
    assert.equal(MAX_REGEX_PROGRAM_BYTES, 64 * 1024)
    assert.match(regexProblem('\\pL{100}') ?? '', /^the pattern is too large: it compiles to more than 64 KiB of RE2 program/)
    assert.match(regexProblem('.{1000}') ?? '', /too large/)
    for (const pattern of ['a{1000}', '(a{10}){100}', '[0-9a-f]{1000}', '\\p{Greek}{20}', '.{250}'])
      assert.equal(regexProblem(pattern), undefined, pattern)
  })

  it("checks on after a pattern outgrows the module's heap, which aborts the module", function () {
    this.timeout(60_000)
    // 18,000 characters: past any request's budget, which is checked first; only a direct call gets here.
    assert.match(regexProblem('\\pL'.repeat(6000)) ?? '', /too large/)
    assert.equal(regexProblem('^/blog/(a|b)$'), undefined)
    assert.match(regexProblem('(') ?? '', /missing \)/)
  })
})
