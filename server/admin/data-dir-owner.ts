// Which other process holds an embedded data directory, read before the CLI opens it: the engine's own
// refusal is preceded by a raw engine line on stderr, so the CLI says it first, in one line of its own.
import fs from 'node:fs'
import path from 'node:path'

/**
 * The id of a live process other than this one named by the directory's `status` file, which the
 * embedded ClickHouse writes (`PID: n`) and locks while it runs; undefined when there is none (a stopped
 * process leaves the file behind with a dead PID).
 */
export function otherOwnerOf(dataDir: string): number | undefined {
  let text: string
  try {
    text = fs.readFileSync(path.join(dataDir, 'status'), 'utf8')
  } catch {
    return undefined
  }
  const pid = Number(/^PID: (\d+)$/m.exec(text)?.[1])
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined
  try {
    process.kill(pid, 0)
    return pid
  } catch (error) {
    // EPERM: the process lives, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined
  }
}
