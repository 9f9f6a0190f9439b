// JSON-Schema validation with ajv: every problem becomes an Issue. Query strings are coerced from
// text ("10" -> 10); documents (NDJSON lines, JSON parameters) are checked exactly as written.
import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { invalid, type Issue } from './errors'

/** A UUID in its text form (client ids, event ids), either case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const coercing = addFormats(new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, strict: true, allowUnionTypes: true }))
const exact = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }))

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
  const path = [...basePath, ...error.instancePath.split('/').filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part))]
  if (error.keyword === 'additionalProperties') {
    const name = (error.params as { additionalProperty: string }).additionalProperty
    return { path: [...path, name], message: `unknown ${keyNoun} "${name}"` }
  }
  if (error.keyword === 'required') {
    const name = (error.params as { missingProperty: string }).missingProperty
    return { path: [...path, name], message: `"${[...path, name].join('.')}" is required` }
  }
  const where = path.length ? `"${path.join('.')}"` : 'value'
  return { path, message: `${where} ${error.message ?? 'is invalid'}` }
}

export function compileSchema<T>(schema: JSONSchemaType<T> | object, options: SchemaOptions = {}): Validator<T> {
  const ajv = options.coerce === false ? exact : coercing
  return { validate: ajv.compile<T>(schema as JSONSchemaType<T>), keyNoun: options.keyNoun ?? 'parameter', coerce: options.coerce !== false }
}

/** Validates `value` (coercing in place where the validator does); returns the issues, empty when valid. */
export function schemaIssues<T>(validator: Validator<T>, value: unknown, basePath: (string | number)[] = []): Issue[] {
  const issues = validator.validate(value) ? [] : (validator.validate.errors ?? []).map((error) => toIssue(error, validator.keyNoun, basePath))
  return validator.coerce ? [...issues, ...infiniteNumbers(value, basePath)] : issues
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
