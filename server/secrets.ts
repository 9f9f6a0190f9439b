// API client secrets: generated once, stored only as a salted scrypt hash.
import crypto from 'node:crypto'
import { promisify } from 'node:util'

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>
const PARAMS = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32

export function generateSecret(): string {
  return `sec_${crypto.randomBytes(24).toString('base64url')}`
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = crypto.randomBytes(16)
  const hash = await scrypt(secret, salt, KEY_LENGTH, PARAMS)
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$')
}

/**
 * A hash of a random secret nobody holds: checking a secret of an unknown or revoked client against
 * it costs what checking a real client's does, so the answer time does not tell which ids exist.
 */
export function dummyHash(): Promise<string> {
  return hashSecret(generateSecret())
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) })
  return crypto.timingSafeEqual(actual, expected)
}
