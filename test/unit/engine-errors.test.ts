import assert from 'node:assert/strict'
import { engineCodeOf, toQueryError } from '../../queries/core/engine-errors'
import type { QueryError } from '../../queries/core/errors'

const engineError = (text: string) => new Error(text)
const codeOf = (error: unknown) => (toQueryError(error) as QueryError).code

describe('engine failures as typed errors', () => {
  it('reads the code from a server error or a chDB message', () => {
    assert.equal(engineCodeOf(Object.assign(new Error('x'), { code: '396' })), 396)
    assert.equal(engineCodeOf(engineError('Code: 241. DB::Exception: Query memory limit exceeded')), 241)
    assert.equal(engineCodeOf(new Error('no code here')), undefined)
  })

  it('maps row and memory caps to a 4xx code, engine shortage to overloaded', () => {
    assert.equal(
      codeOf(engineError('Code: 396. DB::Exception: Limit for result exceeded, max rows: 10.00. (TOO_MANY_ROWS_OR_BYTES)')),
      'too_costly',
    )
    assert.equal(codeOf(engineError('Code: 158. DB::Exception: Limit for rows to read exceeded. (TOO_MANY_ROWS)')), 'too_costly')
    assert.equal(
      codeOf(engineError('Code: 241. DB::Exception: Query memory limit exceeded: would use 48.06 MiB. (MEMORY_LIMIT_EXCEEDED)')),
      'too_costly',
    )
    assert.equal(
      codeOf(engineError('Code: 241. DB::Exception: Memory limit (total) exceeded: would use 9.5 GiB. (MEMORY_LIMIT_EXCEEDED)')),
      'overloaded',
    )
    assert.equal(
      codeOf(engineError('Code: 202. DB::Exception: Too many simultaneous queries. (TOO_MANY_SIMULTANEOUS_QUERIES)')),
      'overloaded',
    )
    assert.equal(codeOf(engineError('Code: 159. DB::Exception: Timeout exceeded. (TIMEOUT_EXCEEDED)')), 'timeout')
    assert.equal(codeOf(engineError('Code: 394. DB::Exception: Query was cancelled. (QUERY_WAS_CANCELLED)')), 'cancelled')
  })

  it('names the problem and how to narrow it, with no engine text', () => {
    const error = toQueryError(engineError('Code: 396. DB::Exception: Limit for result exceeded. (TOO_MANY_ROWS_OR_BYTES)')) as QueryError
    assert.doesNotMatch(JSON.stringify({ message: error.message, issues: error.issues }), /DB::|Code:/)
    assert.match(error.issues[0].message, /narrow/)
  })

  it('names a GROUP BY that would spill past its cap of temporary data a memory problem', () => {
    const error = toQueryError(
      engineError(
        'Code: 396. DB::Exception: Limit for temporary files size exceeded (would consume 527883 / 100000 bytes). (TOO_MANY_ROWS_OR_BYTES)',
      ),
    ) as QueryError
    assert.equal(error.code, 'too_costly')
    assert.match(error.message, /memory/)
  })

  it("maps a statement past the engine's size limits to a 400 that says to narrow the filter tree", () => {
    for (const text of [
      'Code: 62. DB::Exception: Max query size exceeded (can be increased with the `max_query_size` setting): Syntax error: failed at position 262145 (p19_name) (line 360, col 2954): p19_name. . (SYNTAX_ERROR)',
      'Code: 168. DB::Exception: AST is too big. Maximum: 50000. (TOO_BIG_AST)',
    ]) {
      const error = toQueryError(engineError(text)) as QueryError
      assert.equal(error.code, 'too_costly', text)
      assert.deepEqual(
        error.issues.map((issue) => issue.path),
        [['filters']],
      )
      assert.match(error.issues[0].message, /narrow the filter tree/)
      assert.doesNotMatch(JSON.stringify({ message: error.message, issues: error.issues }), /DB::|Code:/)
    }
    const server = toQueryError(Object.assign(new Error('AST is too big. Maximum: 50000'), { code: '168' })) as QueryError
    assert.equal(server.code, 'too_costly')
  })

  it("leaves a syntax error that is not the statement's size as it was: a fault of the gateway's SQL", () => {
    const error = engineError(
      "Code: 62. DB::Exception: Syntax error: failed at position 8 ('FORM'): FORM events. Expected one of: ... (SYNTAX_ERROR)",
    )
    assert.equal(toQueryError(error), error)
  })

  it('leaves an unknown failure as it was', () => {
    const error = new Error('Code: 1000. DB::Exception: something else')
    assert.equal(toQueryError(error), error)
  })
})
