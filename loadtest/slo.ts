// Service-level objectives for CI: `--slo "p99<300ms,errors<0.1%"` parsed into checks of the overall figures.
import type { RouteStats } from './runner'

const LATENCIES = { p50: 'p50', p90: 'p90', p95: 'p95', p99: 'p99', 'p99.9': 'p99_9', max: 'max', mean: 'mean' } as const

export interface Objective {
  /** As written: `p99<300ms`. */
  text: string
  measure(stats: RouteStats): number
  limit: number
  unit: 'ms' | '%' | 'rps'
  /** `<`: the measure must stay below the limit; `>`: above it (throughput). */
  direction: '<' | '>'
}

export interface SloResult {
  objective: string
  actual: number
  limit: number
  unit: string
  met: boolean
}

export class SloSyntaxError extends Error {}

/** Parses a comma list of `p50|p90|p95|p99|p99.9|max|mean < N ms|s`, `errors < N%` and `rps > N`. */
export function parseSlo(text: string): Objective[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part): Objective => {
      const latency = /^(p50|p90|p95|p99|p99\.9|max|mean)\s*<\s*(\d+(?:\.\d+)?)\s*(ms|s)$/.exec(part)
      if (latency) {
        const key = LATENCIES[latency[1] as keyof typeof LATENCIES]
        return {
          text: part,
          measure: (stats) => stats.latency[key],
          limit: Number(latency[2]) * (latency[3] === 's' ? 1000 : 1),
          unit: 'ms',
          direction: '<',
        }
      }
      const errors = /^errors\s*<\s*(\d+(?:\.\d+)?)\s*%$/.exec(part)
      if (errors)
        return {
          text: part,
          measure: (stats) => (stats.requests ? (100 * stats.errors) / stats.requests : 0),
          limit: Number(errors[1]),
          unit: '%',
          direction: '<',
        }
      const rps = /^rps\s*>\s*(\d+(?:\.\d+)?)$/.exec(part)
      if (rps) return { text: part, measure: (stats) => stats.rps, limit: Number(rps[1]), unit: 'rps', direction: '>' }
      throw new SloSyntaxError(`cannot read objective "${part}": write p50|p90|p95|p99|p99.9|max|mean<N ms (or s), errors<N% or rps>N`)
    })
}

export function checkSlo(objectives: Objective[], overall: RouteStats): SloResult[] {
  return objectives.map((objective) => {
    const actual = objective.measure(overall)
    const met = objective.direction === '<' ? actual < objective.limit : actual > objective.limit
    return { objective: objective.text, actual, limit: objective.limit, unit: objective.unit, met }
  })
}
