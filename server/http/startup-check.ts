// The startup check: every SQL file is well formed (queries/core/templates.ts), and every route compiles
// example requests, so a template with a marker nobody fills or a placeholder nobody binds stops startup.
import { QueryError } from '../../queries/core/errors'
import type { Scope } from '../../queries/core/pipeline'
import { checkTemplates, filledMarkers, isRouteTemplate, listSqlFiles, loadTemplate } from '../../queries/core/templates'
import { joinedStatementsOf, statementsOf } from '../../queries/run/statements'
import { EXAMPLE_QUERIES, accepts, examplesFor } from '../routes/examples'
import { ROUTES, resourceOf, type Route } from '../routes/routes'

/** An error's message and issues, with each template it names followed by its file. */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const issues = error instanceof QueryError ? error.issues.map((issue) => `; ${issue.path.join('.')}: ${issue.message}`).join('') : ''
  const files = new Map(
    listSqlFiles()
      .filter((file) => !file.startsWith('migrations/'))
      .map((file) => [loadTemplate(file).name, file]),
  )
  return `${error.message}${issues}`.replace(/Template ([\w.]+)/g, (text, name: string) =>
    files.has(name) ? `${text} (sql/${files.get(name)})` : text,
  )
}

/**
 * Every problem of compiling the example requests of the given routes (each alone, and the routes that
 * join asked together), as `route?query: problem` lines.
 */
export function findRouteProblems(routes: Route[], scope: Scope): string[] {
  const joined = EXAMPLE_QUERIES.flatMap((query) => {
    try {
      joinedStatementsOf(routes.filter((route) => accepts(route, query)).map(resourceOf), query, scope)
      return []
    } catch (error) {
      return [`resources asked together ?${new URLSearchParams(query)}: ${describeError(error)}`]
    }
  })
  return joined.concat(
    routes.flatMap((route) => {
      const examples = examplesFor(route)
      if (!examples.length) return [`${route.path}: no example request reaches this route (add one to EXAMPLE_QUERIES)`]
      return examples.flatMap((query) => {
        try {
          for (const streams of [true, false]) statementsOf(resourceOf(route), { ...query }, scope, streams)
          return []
        } catch (error) {
          return [`${route.path}?${new URLSearchParams(query)}: ${describeError(error)}`]
        }
      })
    }),
  )
}

/** Markers of the templates under sql/ that no compiler has filled so far, as `file: problem` lines. */
export function findUnfilledMarkers(): string[] {
  const filled = filledMarkers()
  return listSqlFiles()
    .filter(isRouteTemplate)
    .flatMap((file) =>
      loadTemplate(file)
        .markers.filter((marker) => !filled.has(`${file} @${marker}`))
        .map((marker) => `${file}: marker @${marker} is filled by no example request of any route`),
    )
}

/**
 * Throws, naming every broken file and route, unless the SQL files are well formed, every route
 * compiles its example requests (each binding exactly its template's placeholders) and together they
 * fill every marker of every template.
 */
export function checkQueries(routes: Route[] = ROUTES, now: Date = new Date()): void {
  checkTemplates()
  const scope: Scope = {
    project: { id: 'startup-check', name: 'startup check', timezone: 'Europe/Berlin' },
    now,
    sessionLookbackMs: 86_400_000,
  }
  const problems = findRouteProblems(routes, scope)
  if (!problems.length) problems.push(...findUnfilledMarkers())
  if (problems.length) throw new Error(`routes cannot compile their example requests:\n  ${problems.join('\n  ')}`)
}
