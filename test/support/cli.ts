// Runs the CLI in this process against a data directory, capturing what it prints.
import { runCli } from '../../server/admin/cli'

export interface CliOutcome {
  code: number
  out: string
  err: string
}

export async function runCliIn(dir: string, argv: string[]): Promise<CliOutcome> {
  const saved = { log: console.log, error: console.error, env: process.env.QUARRY_DATA_DIR }
  let out = ''
  let err = ''
  console.log = (...parts: unknown[]) => void (out += `${parts.join(' ')}\n`)
  console.error = (...parts: unknown[]) => void (err += `${parts.join(' ')}\n`)
  process.env.QUARRY_DATA_DIR = dir
  try {
    return { code: await runCli(argv), out, err }
  } finally {
    Object.assign(console, { log: saved.log, error: saved.error })
    if (saved.env === undefined) delete process.env.QUARRY_DATA_DIR
    else process.env.QUARRY_DATA_DIR = saved.env
  }
}
