// Who holds an embedded data directory, read from the status file the engine writes: a live process other
// than this one, or no one (no file, a dead PID, this process's own).
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { otherOwnerOf } from '../../server/admin/data-dir-owner'

describe('data directory owner', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-owner-'))
  after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const status = (pid: number) =>
    fs.writeFileSync(path.join(dir, 'status'), `PID: ${pid}\nStarted at: 2026-12-02 03:00:00\nRevision: 54513\n`)

  it('names a live process that is not this one', () => {
    status(process.ppid)
    assert.equal(otherOwnerOf(dir), process.ppid)
  })

  it('names no one without a status file, for a dead PID, or for this process', () => {
    assert.equal(otherOwnerOf(path.join(dir, 'nowhere')), undefined)
    // A child that has exited: its PID names no live process (until the system reuses it).
    const exited = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' })
    status(Number(exited.stdout.trim()))
    assert.equal(otherOwnerOf(dir), undefined)
    status(process.pid)
    assert.equal(otherOwnerOf(dir), undefined)
  })
})
