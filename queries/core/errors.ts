// Typed failures of the gateway. Each carries a code from a closed union; server/http/error-handler.ts
// alone maps codes to HTTP statuses.

export type QueryErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'too_many_queries'
  | 'engine_unavailable'
  | 'overloaded'
  | 'too_costly'
  | 'cancelled'
  | 'timeout'

export interface Issue {
  path: (string | number)[]
  message: string
}

export class QueryError extends Error {
  constructor(
    readonly code: QueryErrorCode,
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(message)
    this.name = 'QueryError'
  }
}

export function invalid(issues: Issue[]): QueryError {
  return new QueryError('invalid_request', issues.length === 1 ? issues[0].message : `${issues.length} invalid parameters`, issues)
}

export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`)
}
