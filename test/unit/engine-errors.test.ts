import assert from 'node:assert/strict'
import { engineCodeOf, toQueryError } from '../../queries/core/engine-errors'
import { QueryError } from '../../queries/core/errors'

const engineError = (text: string) => new Error(text)
const codeOf = (error: unknown) => (toQueryError(error) as QueryError).code

describe('engine failures as typed errors', () => {
  it('reads the code from a server error or a chDB message', () => {
    assert.equal(engineCodeOf(Object.assign(new Error('x'), { code: '396' })), 396)
    assert.equal(engineCodeOf(engineError('Code: 241. DB::Exception: Query memory limit exceeded')), 241)
    assert.equal(engineCodeOf(new Error('no code here')), undefined)
  })

  it('maps row and memory caps to a 4xx code, engine shortage to overloaded', () => {
    assert.equal(codeOf(engineError('Code: 396. DB::Exception: Limit for result exceeded, max rows: 10.00. (TOO_MANY_ROWS_OR_BYTES)')), 'too_costly')
    assert.equal(codeOf(engineError('Code: 158. DB::Exception: Limit for rows to read exceeded. (TOO_MANY_ROWS)')), 'too_costly')
    assert.equal(codeOf(engineError('Code: 241. DB::Exception: Query memory limit exceeded: would use 48.06 MiB. (MEMORY_LIMIT_EXCEEDED)')), 'too_costly')
    assert.equal(codeOf(engineError('Code: 241. DB::Exception: Memory limit (total) exceeded: would use 9.5 GiB. (MEMORY_LIMIT_EXCEEDED)')), 'overloaded')
    assert.equal(codeOf(engineError('Code: 202. DB::Exception: Too many simultaneous queries. (TOO_MANY_SIMULTANEOUS_QUERIES)')), 'overloaded')
    assert.equal(codeOf(engineError('Code: 159. DB::Exception: Timeout exceeded. (TIMEOUT_EXCEEDED)')), 'timeout')
    assert.equal(codeOf(engineError('Code: 394. DB::Exception: Query was cancelled. (QUERY_WAS_CANCELLED)')), 'cancelled')
  })

  it('names the problem and how to narrow it, with no engine text', () => {
    const error = toQueryError(engineError('Code: 396. DB::Exception: Limit for result exceeded. (TOO_MANY_ROWS_OR_BYTES)')) as QueryError
    assert.doesNotMatch(JSON.stringify({ message: error.message, issues: error.issues }), /DB::|Code:/)
    assert.match(error.issues[0].message, /narrow/)
  })

  it('names a GROUP BY that would spill past its cap of temporary data a memory problem', () => {
    const error = toQueryError(engineError('Code: 396. DB::Exception: Limit for temporary files size exceeded (would consume 527883 / 100000 bytes). (TOO_MANY_ROWS_OR_BYTES)')) as QueryError
    assert.equal(error.code, 'too_costly')
    assert.match(error.message, /memory/)
  })

  it('leaves an unknown failure as it was', () => {
    const error = new Error('Code: 1000. DB::Exception: something else')
    assert.equal(toQueryError(error), error)
  })
})
