// What a run's report.json holds (its format, and a comparison with an earlier report), shared by the code
// that writes, draws and compares reports.
import type { GatewayView } from './prometheus'
import type { RouteStats } from './runner'
import type { SloResult } from './slo'

export interface RouteChange {
  route: string
  p50: { before: number; after: number; change: number | null }
  p99: { before: number; after: number; change: number | null }
  rps: { before: number; after: number; change: number | null }
  errors: { before: number; after: number }
  regressed: boolean
}

export interface Comparison {
  against: string
  maxRegressionPercent: number
  routes: RouteChange[]
  /** Routes in only one of the two reports. */
  onlyBefore: string[]
  onlyAfter: string[]
  regressed: string[]
  /** Set when the two reports ran different scenarios or versions of one: their routes differ in what they ask. */
  scenarioChange?: string
}

export const REPORT_FORMAT = 1

export interface LoadReport {
  format: typeof REPORT_FORMAT
  scenario: { name: string; version: number; description: string }
  target: { url: string; projectId: string; firstDay: string; lastDay: string }
  options: { connections: number; durationSeconds: number; amount?: number; rate?: number; seed: number }
  startedAt: string
  seconds: number
  overall: RouteStats
  routes: Record<string, RouteStats>
  /** The gateway's Prometheus view over the run; null when its listener could not be reached. */
  gateway: GatewayView | null
  slo: SloResult[]
  comparison?: Comparison
}
