// A request's project, zone and window, the start of every parsed query: read once every other problem of the
// request is in `issues`, so that one 400 lists them all.
import { type RequestDates, requestWindow, type Window } from './dates'
import { type Issue, invalid } from './errors'
import type { Scope } from './pipeline'

/** The project, the zone and the window a request asks about; throws the 400 of `issues` when there is any. */
export function windowOrThrow(
  params: RequestDates,
  scope: Scope,
  issues: Issue[],
): { projectId: string; timezone: string; window: Window } {
  const { timezone, window } = requestWindow(params, { projectZone: scope.project.timezone, now: scope.now, issues })
  if (issues.length || !window) throw invalid(issues)
  return { projectId: scope.project.id, timezone, window }
}
