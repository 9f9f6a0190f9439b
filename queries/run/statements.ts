// Every statement a request runs, compiled without running anything: what `explain` prints and what the
// startup check and the template tests compile.
import type { CompiledQuery } from '../core/compiled'
import { prepare, type AnyResource, type Joins, type Scope, type SettledRow, type StatementSet } from '../core/pipeline'
import { SETTLED_PARAM_NAMES } from '../sessions/settled-days'

/** One statement of a request, named when a request runs several. */
export interface Statement {
  label: string
  compiled: CompiledQuery
}

/** The settled check a request runs before its statement is compiled, when it is a session question (throws a QueryError on bad input). */
export function settledCheckOf(resource: AnyResource, raw: Record<string, unknown>, scope: Scope): CompiledQuery | undefined {
  return resource.settledCheck?.(resource.plan(resource.parse(raw, scope)))
}

/**
 * Every statement a resource runs for a parsed query string, compiled (throws a QueryError on bad input), on
 * an engine that `streams` a statement a block at a time (embedded) or not (a server). A stream runs as one
 * statement read a block at a time where the engine streams and nothing follows from its rows, else one
 * chunk statement after another, each continuing after the previous chunk's last row, with what follows
 * from each chunk; a body of several statements runs them together, then those that follow from their rows.
 * A session question's settled check comes first, and its statement is compiled with `settled`, the rows
 * the check returned; without them (no engine to run it) with no day settled.
 */
export function statementsOf(
  resource: AnyResource,
  raw: Record<string, unknown>,
  scope: Scope,
  streams: boolean,
  settled?: readonly SettledRow[],
): Statement[] {
  const query = resource.plan(resource.parse(raw, scope))
  const followers = (statements: StatementSet, after: string): Statement[] =>
    Object.entries(statements).map(([name, compiled]) => ({ label: `${name} (${after})`, compiled }))
  const stream = resource.stream
  if (stream?.streams(query)) {
    const whole = streams && stream.compileStream(query)
    if (whole) return [{ label: 'stream (the whole stream as one statement, read a block at a time)', compiled: whole }]
    return [
      {
        label: "chunk (the first; each next chunk continues after the previous chunk's last row)",
        compiled: stream.compileChunk(query, undefined),
      },
      ...followers(stream.followChunk(query, ''), 'for the rows of each chunk, once it is in'),
    ]
  }
  const check = resource.settledCheck?.(query)
  const compiled = resource.compile(query, check && settled)
  const checkLabel =
    'settled check (first, unless the same check ran since the data version last changed; see queries/run/settled-check.ts)'
  if (resource.alongside || resource.follow) {
    const checked = check
      ? [{ label: `${checkLabel}; ${settled ? `run here, ${settled.length} settled day(s)` : 'not run here'}`, compiled: check }]
      : []
    return [
      ...checked,
      ...Object.entries({ rows: compiled, ...resource.alongside?.(query) }).map(([label, named]) => ({ label, compiled: named })),
      ...followers(resource.follow?.(query, {}) ?? {}, 'for the rows of the page, once they are in'),
    ]
  }
  if (!check) return [{ label: resource.name, compiled }]
  if (!settled) {
    return [
      { label: `${checkLabel}; not run here`, compiled: check },
      {
        label: `${resource.name} (compiled with no settled day, as no check ran: its rows give ${SETTLED_PARAM_NAMES.join(', ')} at run time)`,
        compiled,
      },
    ]
  }
  return [
    { label: `${checkLabel}; run here, it returned ${settled.length} settled day(s)`, compiled: check },
    { label: `${resource.name} (compiled with the settled days the check returned: what runs)`, compiled },
  ]
}

/**
 * The statements the resource routes of each `Joins` family run when every one of them is asked for `raw`
 * at once (queries/run/joined-runs.ts). `explain` prints a request alone; the startup check and the template tests
 * compile these too, so a joined statement is as checked as a lone one.
 */
export function joinedStatementsOf(resources: AnyResource[], raw: Record<string, unknown>, scope: Scope): Statement[] {
  const batches = new Map<string, { joins: Joins<unknown>; members: { resource: string; query: unknown }[] }>()
  for (const resource of resources) {
    if (!resource.joins) continue
    const joins = resource.joins
    const { query } = prepare(resource, { ...raw }, scope)
    const key = JSON.stringify([joins.family, joins.key(query)])
    const batch = batches.get(key) ?? { joins, members: [] }
    if (!batch.members.some((member) => member.resource === resource.name)) batch.members.push({ resource: resource.name, query })
    batches.set(key, batch)
  }
  return [...batches.values()]
    .filter((batch) => batch.members.length > 1)
    .map(({ joins, members }) => ({
      label: `${members.length} resources of ${joins.family} asked together`,
      compiled: joins.compile(members),
    }))
}
