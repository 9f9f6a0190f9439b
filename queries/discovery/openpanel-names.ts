// OpenPanel's names of the discovery parameters, taken beside Quarry's: `eventName` is `event` and
// `propertyKey` is `key`. Either name may be given, or both when they say the same.
import type { Issue } from '../core/errors'

/** Quarry's parameter for each of OpenPanel's names. */
const OPENPANEL_NAMES: Record<string, string> = { eventName: 'event', propertyKey: 'key' }

/**
 * The query string with OpenPanel's names (of those in `taken`) replaced by Quarry's (`event`, `key`), whichever the request used;
 * a parameter given under both names with two values is an issue (the value under Quarry's name is kept).
 */
export function quarryNames(raw: Record<string, unknown>, taken: readonly string[], issues: Issue[]): Record<string, unknown> {
  const named = { ...raw }
  // Only the names the route takes: another stays as it was sent, for the schema to name it unknown.
  for (const [theirs, ours] of Object.entries(OPENPANEL_NAMES).filter(([theirs]) => taken.includes(theirs))) {
    const given = named[theirs]
    delete named[theirs]
    if (given === undefined) continue
    if (named[ours] === undefined) named[ours] = given
    else if (JSON.stringify(named[ours]) !== JSON.stringify(given))
      issues.push({ path: [theirs], message: `"${theirs}" and "${ours}" name the same parameter and differ: give one, or both equal` })
  }
  return named
}
