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

/**
 * The program a pattern compiles to first. Hand-written patterns (a path, a list of alternatives) fit it and
 * compile in a millisecond or two; a larger program costs the check up to tens of milliseconds on the event
 * loop, so a request may hold only MAX_REQUEST_LARGE_PATTERNS of them (docs/measurements.md, "Regex checks").
 */
export const SMALL_REGEX_PROGRAM_BYTES = 8 * 1024

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

/** What RE2 says of a pattern compiled within `maxBytes` of program: nothing, too large, or its problem. */
type Compiled = { ok: true } | { ok: false; tooLarge: true } | { ok: false; tooLarge: false; problem: string }

/** Compiles a pattern as the engine's `match` compiles it, its program capped at `maxBytes`. */
function compile(pattern: string, maxBytes: number): Compiled {
  let compiled: WrappedRE2 | undefined
  try {
    // As ClickHouse's match: case-sensitive, `.` matching newlines too (dot_nl: match('a\nb', 'a.b') is 1),
    // UTF-8, RE2's Perl syntax.
    compiled = new Re2(withPythonGroupNames(pattern), false, false, true, maxBytes)
    if (compiled.ok()) return { ok: true }
    const error = compiled.error()
    if (/pattern too large/.test(error)) return { ok: false, tooLarge: true }
    const problem = LOOK_AROUND_OR_BACK_REFERENCE.test(error) ? `${error} (look-arounds and back-references are not RE2 syntax)` : error
    return { ok: false, tooLarge: false, problem }
  } catch (error) {
    if (!(error instanceof WebAssembly.RuntimeError)) throw error
    reloadRe2()
    return { ok: false, tooLarge: true }
  } finally {
    compiled?.delete()
  }
}

/** A pattern's verdict: why the engine would refuse it (undefined when it compiles), and whether it is large. */
export interface RegexVerdict {
  problem?: string
  /** It compiles to more than SMALL_REGEX_PROGRAM_BYTES of program. */
  large: boolean
  /** Large, and not compiled in full: the request had no room for another large pattern. */
  unchecked?: true
}

/** Verdicts by pattern: a dashboard repeats its patterns, each compiled once. */
const verdicts = new LRUCache<string, RegexVerdict>({ max: 1000 })

/**
 * The verdict on a pattern, compiled within the small program first; a large one is compiled in full only
 * when `mayBeLarge` (the request has room for one more), and is otherwise left `unchecked`.
 */
export function regexVerdict(pattern: string, mayBeLarge: boolean): RegexVerdict {
  const known = verdicts.get(pattern)
  if (known) return known.large && !mayBeLarge ? { large: true, unchecked: true } : known
  const small = compile(pattern, SMALL_REGEX_PROGRAM_BYTES)
  if (!small.ok && !small.tooLarge) return remembered(pattern, { problem: small.problem, large: false })
  if (small.ok) return remembered(pattern, { large: false })
  if (!mayBeLarge) return { large: true, unchecked: true }
  const full = compile(pattern, MAX_REGEX_PROGRAM_BYTES)
  return remembered(pattern, full.ok ? { large: true } : { problem: full.tooLarge ? tooLarge : full.problem, large: true })
}

function remembered(pattern: string, verdict: RegexVerdict): RegexVerdict {
  verdicts.set(pattern, verdict)
  return verdict
}

/** Why the engine would refuse a regex pattern (RE2's own message), or undefined when it compiles. */
export const regexProblem = (pattern: string): string | undefined => regexVerdict(pattern, true).problem
