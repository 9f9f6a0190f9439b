// The OpenAPI document as TypeScript types (openapi-typescript), for typed clients such as
// examples/metrics-client.ts. `npm run openapi:types` rewrites the committed file; a test keeps it current.
import fs from 'node:fs'
import path from 'node:path'
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript'
import { buildOpenApi } from './openapi'
import { ROUTES } from '../routes/routes'

export const TYPES_FILE = path.join(__dirname, '..', '..', 'examples', 'quarry-api.ts')

export async function generateTypes(document: object): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as never, { silent: true })
  return `${COMMENT_HEADER}${astToString(ast)}`
}

if (require.main === module) {
  generateTypes(buildOpenApi(ROUTES)).then((text) => {
    fs.writeFileSync(TYPES_FILE, text)
    console.log(`wrote ${path.relative(process.cwd(), TYPES_FILE)}`)
  })
}
