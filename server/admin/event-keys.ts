// The two key styles an imported line may use: the import format's snake_case (`device_id`) and the
// camelCase that `/export/events` and `export` write (`deviceId`), so an export reads back as it is.
// A line uses one style; it is read in snake_case.

/** Fields an export row may carry that are not event fields, with why a line holding one is refused. */
const NOT_EVENT_FIELDS: Record<string, string> = {
  profile: '"profile" (--includes profile) is the visitor\'s profile, not an event field: export without it',
}

const camelOf = (snake: string) => snake.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

/** A line's keys in snake_case, or why they cannot be read. */
export function toSnakeKeys(
  event: Record<string, unknown>,
  snakeFields: readonly string[],
): { event: Record<string, unknown>; problems: string[] } {
  const snakeOf = new Map(snakeFields.filter((field) => field.includes('_')).map((field) => [camelOf(field), field]))
  const keys = Object.keys(event)
  const problems = keys.filter((key) => Object.hasOwn(NOT_EVENT_FIELDS, key)).map((key) => NOT_EVENT_FIELDS[key])
  const camel = keys.filter((key) => snakeOf.has(key))
  const snake = keys.filter((key) => key.includes('_'))
  if (camel.length && snake.length) {
    problems.push(`mixes snake_case keys (${snake.join(', ')}) with camelCase ones (${camel.join(', ')}): use one style per line`)
  }
  if (problems.length) return { event, problems }
  return { event: Object.fromEntries(Object.entries(event).map(([key, value]) => [snakeOf.get(key) ?? key, value])), problems: [] }
}
