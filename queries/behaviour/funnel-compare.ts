// `compare` of `/funnel` (queries/core/compare.ts): the same funnel over the compared window, without its
// breakdown, gives `previous: { steps, totalUsers, completedUsers, overallConversionRate }` and its `change`.
import { changesOf, type Comparable, type CompareHook } from '../core/compare'

/** What the hook reads of a funnel request: its window and mode, and the breakdown it leaves out. */
interface FunnelRequest extends Comparable {
  breakdown?: unknown
  breakdownLimit: number
}

interface FunnelBody {
  steps: Record<string, unknown>[]
  totalUsers: number
  completedUsers: number
  overallConversionRate: number
}

/** The numeric fields of a step, and of the funnel. */
const STEP_FIELDS = ['users', 'conversionRateFromStart', 'dropoffPercent'] as const
const FUNNEL_FIELDS = ['totalUsers', 'completedUsers', 'overallConversionRate'] as const

export function funnelCompare<Parsed extends FunnelRequest, Planned extends Comparable>(): CompareHook<Parsed, Planned> {
  return {
    asked: (query) => query,
    question({ parsed, window }) {
      const { compare: _compare, breakdown: _breakdown, ...request } = parsed
      return { ...request, window, breakdownLimit: 1 } as Parsed
    },
    merge(body, previous) {
      const now = body as FunnelBody
      const before = previous as FunnelBody
      const { steps, totalUsers, completedUsers, overallConversionRate } = before
      const stepChanges = now.steps.map((step, index) => ({
        step: step.step,
        ...changesOf(step, before.steps[index] ?? null, STEP_FIELDS),
      }))
      return {
        ...now,
        previous: { steps, totalUsers, completedUsers, overallConversionRate },
        change: { steps: stepChanges, ...changesOf({ ...now }, { ...before }, FUNNEL_FIELDS) },
      }
    },
  }
}
