// The params every windowed statement binds: its project and the window's bounds, as UTC text.
import type { Params } from './compiled'
import type { Window } from './dates'
import { toClickHouseTime } from './pipeline'

/** `projectId`, `start` and `end` (inclusive start, exclusive end) of a statement over one window. */
export function windowParams(projectId: string, window: Window): Params {
  return { projectId, start: toClickHouseTime(window.start), end: toClickHouseTime(window.end) }
}
