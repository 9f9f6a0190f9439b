// JSON-Schema validation with ajv: every problem becomes an Issue. Query strings are coerced from
// text ("10" -> 10), numbers only from plain decimal text; documents (NDJSON lines, JSON parameters) are
// checked exactly as written.
import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { invalid, type Issue } from './errors'

/** A UUID in its text form (client ids, event ids), either case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// `verbose` gives each error its schema, so a missing enum parameter can name its values.
const coercing = addFormats(
  new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, strict: true, allowUnionTypes: true, verbose: true }),
)
const exact = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true }))

/**
 * The text a query-string number may be: decimal digits with an optional minus sign, and for a `number` a
 * fraction after a point. No hex, octal or binary prefixes, exponents, plus signs, blanks or separators.
 */
const DECIMAL_TEXT = {
  integer: { pattern: /^-?\d+$/, says: 'must be a decimal integer (digits only)' },
  number: { pattern: /^-?\d+(\.\d+)?$/, says: 'must be a decimal number (digits, optionally a point and more digits)' },
} as const
type NumberKind = keyof typeof DECIMAL_TEXT

interface PropertySchema {
  type?: unknown
  enum?: readonly unknown[]
  items?: PropertySchema
}

export interface SchemaOptions {
  /** Coerce text to the schema's types (query strings). */
  coerce?: boolean
  /** What an unknown key is called in messages. */
  keyNoun?: string
}

export interface Validator<T> {
  validate: ValidateFunction<T>
  keyNoun: string
  coerce: boolean
}

function toIssue(error: ErrorObject, keyNoun: string, basePath: (string | number)[]): Issue {
  const path = [
    ...basePath,
    ...error.instancePath
      .split('/')
      .filter(Boolean)
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part)),
  ]
  if (error.keyword === 'additionalProperties') {
    const name = (error.params as { additionalProperty: string }).additionalProperty
    return { path: [...path, name], message: `unknown ${keyNoun} "${name}"` }
  }
  if (error.keyword === 'required') {
    const name = (error.params as { missingProperty: string }).missingProperty
    const values = (error.parentSchema as { properties?: Record<string, PropertySchema> } | undefined)?.properties?.[name]?.enum
    return { path: [...path, name], message: `"${[...path, name].join('.')}" is required${values ? `, one of: ${values.join(', ')}` : ''}` }
  }
  const where = path.length ? `"${path.join('.')}"` : 'value'
  if (error.keyword === 'enum') {
    const values = (error.params as { allowedValues: readonly unknown[] }).allowedValues
    return { path, message: `${where} must be one of: ${values.join(', ')}` }
  }
  return { path, message: `${where} ${error.message ?? 'is invalid'}` }
}

/** `integer` or `number` when the schema takes only that kind of value, else undefined. */
function numberKindOf(schema: PropertySchema | undefined): NumberKind | undefined {
  return schema?.type === 'integer' || schema?.type === 'number' ? schema.type : undefined
}

/**
 * TRICKY: ajv coerces any text JavaScript's `Number()` reads ("0x10" -> 16, " 5" -> 5, "1e1" -> 10), so
 * the top-level query-string values meant as numbers (or lists of them) are checked as text before it
 * runs; each one refused here is reported once, in place of whatever ajv says about it.
 */
function numberTextIssues(schema: { properties?: Record<string, PropertySchema> }, value: unknown, basePath: (string | number)[]): Issue[] {
  if (!value || typeof value !== 'object' || !schema.properties) return []
  const issues: Issue[] = []
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const property = schema.properties[name]
    const single = numberKindOf(property)
    const listed = property?.type === 'array' ? numberKindOf(property.items) : undefined
    const texts: [(string | number)[], unknown, NumberKind | undefined][] = single
      ? [[[name], raw, single]]
      : listed
        ? (Array.isArray(raw) ? raw : [raw]).map((item, index) => [[name, index], item, listed])
        : []
    for (const [path, text, kind] of texts) {
      if (kind && typeof text === 'string' && !DECIMAL_TEXT[kind].pattern.test(text)) {
        issues.push({ path: [...basePath, ...path], message: `"${path.join('.')}" ${DECIMAL_TEXT[kind].says}` })
      }
    }
  }
  return issues
}

export function compileSchema<T>(schema: JSONSchemaType<T> | object, options: SchemaOptions = {}): Validator<T> {
  const ajv = options.coerce === false ? exact : coercing
  return {
    validate: ajv.compile<T>(schema as JSONSchemaType<T>),
    keyNoun: options.keyNoun ?? 'parameter',
    coerce: options.coerce !== false,
  }
}

/** Validates `value` (coercing in place where the validator does); returns the issues, empty when valid. */
export function schemaIssues<T>(validator: Validator<T>, value: unknown, basePath: (string | number)[] = []): Issue[] {
  const textIssues = validator.coerce ? numberTextIssues(validator.validate.schema as object, value, basePath) : []
  const refused = new Set(textIssues.map((issue) => issue.path.join('\0')))
  const issues = validator.validate(value)
    ? []
    : (validator.validate.errors ?? []).map((error) => toIssue(error, validator.keyNoun, basePath))
  if (!validator.coerce) return issues
  return [...issues.filter((issue) => !refused.has(issue.path.join('\0'))), ...textIssues, ...infiniteNumbers(value, basePath)]
}

/**
 * A query string checked against a route's schema: a copy of it with the schema's defaults and coercions
 * applied, as the typed params it now is, and the schema's issues (the caller adds its own to them).
 */
export function checkedParams<P>(validator: Validator<unknown>, raw: Record<string, unknown>): { typed: P; issues: Issue[] } {
  const params = { ...raw }
  const issues = schemaIssues(validator, params)
  return { typed: params as unknown as P, issues }
}

/**
 * TRICKY: ajv coerces text such as "1e309" to Infinity, which its integer and maximum checks let
 * through; a coerced parameter must be a finite number.
 */
function infiniteNumbers(value: unknown, basePath: (string | number)[]): Issue[] {
  if (!value || typeof value !== 'object') return []
  return Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => typeof item === 'number' && !Number.isFinite(item))
    .map(([name]) => ({ path: [...basePath, name], message: `"${name}" must be a finite number` }))
}

export function assertValid<T>(validator: Validator<T>, value: unknown): T {
  const issues = schemaIssues(validator, value)
  if (issues.length) throw invalid(issues)
  return value as T
}
