// The data version: `count()` of `events` (control/data-version.sql). Events are only appended, so any
// insert, late events for settled days included, changes it.
import { compileTemplate } from './compiled'
import type { Runner } from './run'

/** The data version now, as text. A statement without parameters: it runs on the control lane, never behind data statements. */
export async function readDataVersion(runner: Runner): Promise<string> {
  const rows = await runner.control<{ events: number }>(compileTemplate('control/data-version.sql', {}))
  return String(rows[0]?.events)
}
