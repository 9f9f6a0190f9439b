// The compaction lease: one compaction at a time per database. A run claims the generation after the
// latest, and the engine keeps one claim per generation (migrations/002_derived_tables.sql), so two
// contenders can never both hold it; the holder logs a row in compaction_lease for each day it compacts,
// and a released row when it ends. A holder that logged nothing for LEASE_SECONDS has died, and the next
// claim takes over; the one it replaced stops at its next check (`keepsLease`).
import crypto from 'node:crypto'
import { compileTemplate } from '../../queries/core/compiled'
import type { Engine } from '../engine'

/** How long a holder's lease lasts after its claim or its latest logged row. */
const LEASE_SECONDS = 3_600

/** This process's prefix of its holders' ids: embedded, the holders of any other process died with it. */
export const LEASE_PROCESS = `${crypto.randomUUID()}:`

/** A lease held: its holder and the generation it claimed. */
export interface Lease {
  holder: string
  generation: number
}

export interface LeaseState {
  generation: number
  holder: string
  live: number
}

/** The latest generation, its claimant, and whether that claimant holds the lease now. */
export async function readLease(engine: Engine): Promise<LeaseState> {
  const [row] = await engine.admin.rows<{ generation: number | string; holder: string; live: number }>(
    compileTemplate('admin/compact-lease-state.sql', { leaseSeconds: LEASE_SECONDS }),
  )
  return { generation: Number(row.generation), holder: row.holder, live: Number(row.live) }
}

/** The holder that claimed `generation` (none when nobody did). */
async function winnerOf(engine: Engine, generation: number): Promise<string | undefined> {
  const [row] = await engine.admin.rows<{ holder: string }>(compileTemplate('admin/compact-lease-winner.sql', { generation }))
  return row?.holder
}

/**
 * Claims the lease for a new holder: the lease when it won the next generation, or the holder that holds
 * it (or won the generation) instead. `seen` is the state the claim follows from: read now unless given.
 */
export async function claimLease(engine: Engine, seen?: LeaseState): Promise<{ lease: Lease } | { heldBy: string }> {
  const holder = `${LEASE_PROCESS}${crypto.randomUUID()}`
  // TRICKY: a gateway killed during a run leaves its claim live for the lease time; embedded, no other
  // process can be running, so their holders are released first.
  if (engine.settings.mode === 'embedded')
    await engine.admin.command(compileTemplate('admin/compact-lease-release-others.sql', { process: LEASE_PROCESS }))
  const state = seen ?? (await readLease(engine))
  if (state.live) return { heldBy: state.holder }
  const generation = state.generation + 1
  await engine.admin.command(
    compileTemplate('admin/compact-lease-claim.sql', { generation, holder, token: `compaction-claim-${generation}` }),
  )
  const winner = await winnerOf(engine, generation)
  if (winner !== holder) return { heldBy: winner ?? 'none' }
  await engine.admin.command(compileTemplate('admin/compact-lease-take.sql', { holder }))
  return { lease: { holder, generation } }
}

/** Logs that `lease` is still at work, so it lasts another LEASE_SECONDS. */
export async function renewLease(engine: Engine, lease: Lease): Promise<void> {
  await engine.admin.command(compileTemplate('admin/compact-lease-take.sql', { holder: lease.holder }))
}

/** Before a step that others must not see half done (an attach, a record): stops unless `lease` still holds. */
export async function keepsLease(engine: Engine, lease: Lease): Promise<void> {
  const state = await readLease(engine)
  if (state.generation !== lease.generation || state.holder !== lease.holder || !state.live) {
    throw new Error(
      `Compaction ${lease.holder} lost its lease to ${state.holder || 'nobody'}; it stops before attaching or recording anything more`,
    )
  }
}

/** Ends `lease`: its rows no longer count, and the next claim may take the next generation. */
export async function releaseLease(engine: Engine, lease: Lease): Promise<void> {
  await engine.admin.command(compileTemplate('admin/compact-lease-release.sql', { holder: lease.holder }))
}
