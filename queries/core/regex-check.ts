// Whether the engine's `match` would compile a regex filter's pattern: RE2 itself (compiled to WebAssembly)
// compiles it with the options ClickHouse gives RE2, so the gateway refuses what the engine would refuse
// before anything runs, and accepts RE2 syntax JavaScript lacks (`(?i)`, `(?P<name>...)`).
import { LRUCache } from 'lru-cache'

interface WrappedRE2 {
  ok(): boolean
  error(): string
  delete(): void
}
type WrappedRE2Constructor = new (pattern: string, ignoreCase: boolean, multiline: boolean, dotAll: boolean, maxMem: number) => WrappedRE2

/**
 * RE2's own binding, not the package's `RE2` class: that class first translates JavaScript syntax (`\cA`,
 * `\u0041`) into RE2's, and so would pass patterns the engine refuses. This fork of Google's re2-wasm takes
 * RE2's `max_mem`, which Google's build does not (docs/measurements.md, "Regex checks").
 */
const MODULE = '@adguard/re2-wasm/build/wasm/re2'

/**
 * The RE2 program a pattern may compile to, in bytes (RE2's `max_mem`; the engine's is RE2's default, 8 MiB).
 * A cost cap: a counted repetition of a Unicode class (`\pL{100}`) compiles to a program the engine runs on
 * every row it reads, and that the WebAssembly build compiles slowly (docs/measurements.md, "Regex checks").
 */
export const MAX_REGEX_PROGRAM_BYTES = 64 * 1024

/** The problem of a pattern RE2 gives up on, or that outgrows the module's heap. */
const tooLarge = `the pattern is too large: it compiles to more than ${MAX_REGEX_PROGRAM_BYTES / 1024} KiB of RE2 program (a counted repetition of a large class, such as \\pL{100}?)`

/**
 * Loads the module (synchronously: it is built with WASM_ASYNC_COMPILATION=0) and compiles one pattern, so
 * that the module's load and first compile are paid once, when the gateway starts, not by a request.
 */
function loadRe2(): WrappedRE2Constructor {
  const { WrappedRE2 } = require(MODULE) as { WrappedRE2: WrappedRE2Constructor }
  new WrappedRE2('a', false, false, true, MAX_REGEX_PROGRAM_BYTES).delete()
  return WrappedRE2
}

let Re2 = loadRe2()

/**
 * TRICKY: the WebAssembly heap is fixed (16 MiB, no growth): a pattern whose parse outgrows it aborts the
 * module with a RuntimeError, and the memory of that compile is never freed, so every later check would abort
 * too. After one, the module is loaded anew (a fresh heap) and the pattern refused.
 */
function reloadRe2(): void {
  delete require.cache[require.resolve(MODULE)]
  Re2 = loadRe2()
}

/**
 * `(?<name>...)` as `(?P<name>...)`: the engine's RE2 takes both, the RE2 of this module only the second.
 * Look-behinds (`(?<=`, `(?<!`) are left alone: neither takes them.
 */
const withPythonGroupNames = (pattern: string): string => pattern.replace(/\(\?<(?![=!])/g, '(?P<')

/** RE2's messages for JavaScript's look-arounds (`(?=`, `(?<!`) and back-references (`\1`, `\k<name>`). */
const LOOK_AROUND_OR_BACK_REFERENCE = /invalid perl operator: \(\?<?[=!]|invalid escape sequence: \\[1-9k]/

/** The problem RE2 finds in a pattern, compiled as the engine's `match` compiles it; undefined when none. */
function compileProblem(pattern: string): string | undefined {
  let compiled: WrappedRE2 | undefined
  try {
    // As ClickHouse's match: case-sensitive, `.` matching newlines too (dot_nl: match('a\nb', 'a.b') is 1),
    // UTF-8, RE2's Perl syntax.
    compiled = new Re2(withPythonGroupNames(pattern), false, false, true, MAX_REGEX_PROGRAM_BYTES)
    if (compiled.ok()) return undefined
    const error = compiled.error()
    if (/pattern too large/.test(error)) return tooLarge
    return LOOK_AROUND_OR_BACK_REFERENCE.test(error) ? `${error} (look-arounds and back-references are not RE2 syntax)` : error
  } catch (error) {
    if (!(error instanceof WebAssembly.RuntimeError)) throw error
    reloadRe2()
    return tooLarge
  } finally {
    compiled?.delete()
  }
}

/** Verdicts by pattern: a dashboard repeats its patterns, each compiled once. */
const verdicts = new LRUCache<string, { problem?: string }>({ max: 1000 })

/** Why the engine would refuse a regex pattern (RE2's own message), or undefined when it compiles. */
export function regexProblem(pattern: string): string | undefined {
  const known = verdicts.get(pattern)
  if (known) return known.problem
  const problem = compileProblem(pattern)
  verdicts.set(pattern, problem === undefined ? {} : { problem })
  return problem
}
