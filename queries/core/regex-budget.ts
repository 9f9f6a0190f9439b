// One regex budget per request (docs/api/filters.md, "Regular expressions"): every pattern a request holds,
// in `filters`, chart series, tree leaves, funnel steps, retention's start and return events or the paths
// start, counted each time a statement runs it, then compiled by RE2 as the engine would compile it. Every
// issue points at the pattern it is about.
import type { Issue } from './errors'
import { regexVerdict, SMALL_REGEX_PROGRAM_BYTES } from './regex-check'

/**
 * A regex filter's cost grows with its patterns: each is matched against every row read, and a request's
 * statements read its rows once per pattern they run. A hundred alternation-heavy patterns ran past any time
 * limit; 20 patterns of 1,000 characters in all cover a hand-written path list. So these cap a whole request,
 * however its patterns are split over its parameters.
 */
export const MAX_REQUEST_REGEX_PATTERNS = 20
export const MAX_REQUEST_REGEX_CHARACTERS = 1000
/**
 * Unicode classes (`\pL`, `\P{Greek}`) a request's patterns may name in all: RE2 builds each from its tables
 * when it parses the pattern, hundreds of ranges for `\pL`, which the gateway's check pays on its event loop
 * (docs/measurements.md, "Regex checks"); 250 of them fit in 1,000 characters.
 */
export const MAX_REQUEST_UNICODE_CLASSES = 10
/**
 * Patterns a request may hold that compile to more than SMALL_REGEX_PROGRAM_BYTES of RE2 program (a counted
 * repetition of a class, `.{200}`): each costs the check up to tens of milliseconds on the event loop, which
 * 20 of them made a third of a second (docs/measurements.md, "Regex checks").
 */
export const MAX_REQUEST_LARGE_PATTERNS = 2

/** Escapes of a pattern, each a backslash and the character after it (`\\` is one, so `\\p` names no class). */
const ESCAPE = /\\[\s\S]/g
const unicodeClassesOf = (text: string): number =>
  [...text.matchAll(ESCAPE)].filter(([written]) => written === '\\p' || written === '\\P').length

/** A regex pattern of a request and the path of the parameter value that holds it (`steps.0.filters.1.value.0`). */
export interface RegexPattern {
  text: string
  path: (string | number)[]
}

/**
 * Patterns and how many times the request's statement runs each: once, or once per step for a request's
 * `filters` that are ANDed into every funnel step (and into both retention steps).
 */
export interface RegexUse {
  patterns: readonly RegexPattern[]
  runs: number
}

/** Patterns read under `prefix`: a step's filters under `steps.0`, a chart item's under `series.2`. */
export const patternsUnder = (prefix: (string | number)[], patterns: readonly RegexPattern[]): RegexPattern[] =>
  patterns.map((pattern) => ({ ...pattern, path: [...prefix, ...pattern.path] }))

/**
 * The issues of a request's regex patterns, all given at once by its route's parse. Past the caps, counted in
 * order, one issue at the pattern whose use passes them, with the request's totals, and nothing is compiled;
 * within them, each pattern RE2 refuses, at its own path.
 */
export function regexIssues(uses: readonly RegexUse[]): Issue[] {
  return budgetIssues(uses) ?? syntaxIssues(uses.flatMap(({ patterns }) => patterns))
}

const OVER_LARGE =
  `the request already holds ${MAX_REQUEST_LARGE_PATTERNS} patterns that compile to more than ${SMALL_REGEX_PROGRAM_BYTES / 1024} KiB ` +
  'of RE2 program (counted repetitions of a class, such as .{200}), the most a request may hold: shorten the repetitions'

/** Each pattern RE2 refuses, at its own path, and the large ones past the request's allowance (each compiled in full counts, refused or not). */
function syntaxIssues(patterns: readonly RegexPattern[]): Issue[] {
  let large = 0
  return patterns.flatMap((pattern) => {
    const verdict = regexVerdict(pattern.text, large < MAX_REQUEST_LARGE_PATTERNS)
    if (verdict.unchecked) return [{ path: pattern.path, message: OVER_LARGE }]
    if (verdict.large) large += 1
    return verdict.problem === undefined ? [] : [{ path: pattern.path, message: `invalid regular expression: ${verdict.problem}` }]
  })
}

function budgetIssues(uses: readonly RegexUse[]): Issue[] | undefined {
  let count = 0
  let characters = 0
  let classes = 0
  let past: RegexPattern | undefined
  for (const { patterns, runs } of uses) {
    for (let run = 0; run < runs; run += 1) {
      for (const pattern of patterns) {
        count += 1
        characters += pattern.text.length
        classes += unicodeClassesOf(pattern.text)
        const over =
          count > MAX_REQUEST_REGEX_PATTERNS || characters > MAX_REQUEST_REGEX_CHARACTERS || classes > MAX_REQUEST_UNICODE_CLASSES
        if (!past && over) past = pattern
      }
    }
  }
  if (!past) return undefined
  return [
    {
      path: past.path,
      message:
        `a request may hold at most ${MAX_REQUEST_REGEX_PATTERNS} regex patterns of ${MAX_REQUEST_REGEX_CHARACTERS} characters in all, ` +
        `naming at most ${MAX_REQUEST_UNICODE_CLASSES} Unicode classes (\\p, \\P), over its filters, steps, series and tree leaves ` +
        '(its filters once per step they run in), and this pattern passes the cap; ' +
        `this one holds ${count} patterns of ${characters} characters${classes ? ` naming ${classes} Unicode classes` : ''}: ` +
        'combine them into fewer patterns or use another operator',
    },
  ]
}
