// The keyset cursors of the people lists (profiles, a profile's sessions, groups): where a page ends, as an
// opaque token the next page starts after. A page after a cursor reads what the first page reads, whatever
// its depth. OpenPanel's answers there are bare arrays, so the next page's cursor travels in the `Link` header.
import type { Issue } from '../core/errors'

/** Where a page ends: the time (epoch ms) and id of its last row. */
export interface Keyset {
  ms: number
  id: string
}

/** The keyset before every row of a descending list, and after every row of an ascending one: DateTime64(3) spans 1900..2299. */
export const KEYSET_LAST: Keyset = { ms: Date.parse('2300-01-01T00:00:00Z'), id: '' }
export const KEYSET_FIRST: Keyset = { ms: Date.parse('1899-12-31T00:00:00Z'), id: '' }

export function encodeKeyset(keyset: Keyset): string {
  return Buffer.from(JSON.stringify([keyset.ms, keyset.id])).toString('base64url')
}

/** The keyset of a cursor, or an issue when this API did not issue it. */
export function decodeKeyset(text: string, issues: Issue[]): Keyset | undefined {
  try {
    const [ms, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[]
    if (Number.isSafeInteger(ms) && (ms as number) > KEYSET_FIRST.ms && (ms as number) < KEYSET_LAST.ms && typeof id === 'string')
      return { ms: ms as number, id }
  } catch {
    // Not base64url JSON: reported below.
  }
  issues.push({ path: ['cursor'], message: '"cursor" is not a cursor this API issued' })
  return undefined
}

export const cursorProperty = {
  type: 'string',
  minLength: 1,
  description: 'The next page: the `cursor` of the `Link: <...>; rel="next"` header of the page before',
}

/** A page of `limit` rows out of `limit + 1` read, and the cursor after its last row when more follow. */
export function keysetPage<R>(rows: readonly R[], limit: number, keyOf: (row: R) => Keyset): { page: R[]; nextCursor?: string } {
  if (rows.length <= limit) return { page: [...rows] }
  const page = rows.slice(0, limit)
  return { page, nextCursor: encodeKeyset(keyOf(page[page.length - 1])) }
}
