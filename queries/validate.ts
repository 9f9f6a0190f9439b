// JSON-Schema validation of raw request parameters with ajv: every problem becomes an Issue.
import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { invalid, type Issue } from './errors'

const ajv = new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, strict: true, allowUnionTypes: true })
addFormats(ajv)

function toIssue(error: ErrorObject): Issue {
  const path = error.instancePath.split('/').filter(Boolean)
  if (error.keyword === 'additionalProperties') {
    const name = (error.params as { additionalProperty: string }).additionalProperty
    return { path: [...path, name], message: `unknown parameter "${name}"` }
  }
  if (error.keyword === 'required') {
    const name = (error.params as { missingProperty: string }).missingProperty
    return { path: [...path, name], message: `"${name}" is required` }
  }
  const where = path.length ? `"${path.join('.')}"` : 'request'
  return { path, message: `${where} ${error.message ?? 'is invalid'}` }
}

export function compileSchema<T>(schema: JSONSchemaType<T> | object): ValidateFunction<T> {
  return ajv.compile<T>(schema as JSONSchemaType<T>)
}

/** Validates (and coerces, in place) `value`; returns the issues, empty when valid. */
export function schemaIssues<T>(validate: ValidateFunction<T>, value: unknown): Issue[] {
  if (validate(value)) return []
  return (validate.errors ?? []).map(toIssue)
}

export function assertValid<T>(validate: ValidateFunction<T>, value: unknown): T {
  const issues = schemaIssues(validate, value)
  if (issues.length) throw invalid(issues)
  return value as T
}
