// /docs: the API reference page, rendered by swagger-ui-express from /openapi.json with a closed list of
// swagger-ui-dist's assets, under a Content-Security-Policy that lets it load nothing from elsewhere.
import crypto from 'node:crypto'
import path from 'node:path'
import express, { type RequestHandler } from 'express'
import swaggerUi from 'swagger-ui-express'
import { FAMILIES } from './openapi-examples'

/** The operation open on arrival, so a worked example of a JSON parameter is the first thing seen. */
const OPEN_OPERATION = ['operations', 'Behaviour', 'insightsFunnel']

/** Swagger UI layout keys and whether each is shown on arrival: the collapsed families folded, the funnel open. */
const SHOWN_ON_ARRIVAL: [string[], boolean][] = [
  ...FAMILIES.filter((family) => 'collapsed' in family && family.collapsed).map(({ name }): [string[], boolean] => [
    ['operations-tag', name],
    false,
  ]),
  [OPEN_OPERATION, true],
]

/**
 * Runs in the browser once the document is loaded: swagger-ui-express writes it into swagger-ui-init.js (a
 * file, so the policy needs no inline script). Swagger UI keys its layout state by lists, which its
 * `initialState` option cannot express as JSON, hence the layout actions.
 */
function showOnArrival() {
  const { ui } = window as unknown as {
    ui: { getConfigs(): { shownOnArrival: [string[], boolean][] }; layoutActions: { show(key: string[], shown: boolean): void } }
  }
  for (const [key, shown] of ui.getConfigs().shownOnArrival) ui.layoutActions.show(key, shown)
}

/**
 * "Try it out" sends real calls with the credentials given under "Authorize"; no validator is asked. The
 * base layout leaves out the standalone top bar, whose logo carries a <style> of its own and whose
 * "Explore" box would load any document from anywhere. Families are listed in the document's order.
 */
const OPTIONS = {
  customSiteTitle: 'Quarry API',
  customCss: '',
  swaggerOptions: {
    url: '../openapi.json',
    validatorUrl: null,
    layout: 'BaseLayout',
    docExpansion: 'list',
    shownOnArrival: SHOWN_ON_ARRIVAL,
    onComplete: showOnArrival,
  },
}

/**
 * The files of swagger-ui-dist the page loads. Its own index.html and swagger-initializer.js are left out
 * on purpose: they load the Petstore example from the internet.
 */
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png', 'favicon-16x16.png']
const DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'))

const sha256 = (text: string) => `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`

/**
 * The page's policy: everything from the gateway itself. The page's own <style> blocks and the one style
 * attribute of its markup are allowed by hash; `data:` images are the icons inside swagger-ui's CSS.
 */
function contentSecurityPolicy(html: string): string {
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(([, css]) => sha256(css))
  const attributes = [...html.matchAll(/\sstyle="([^"]*)"/g)].map(([, css]) => sha256(css))
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' ${styles.join(' ')}${attributes.length ? ` 'unsafe-hashes' ${attributes.join(' ')}` : ''}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The handlers to mount at /docs (after a redirect of /docs itself to /docs/). */
export function docsRouter(): express.Router {
  const html = swaggerUi.generateHTML(undefined, OPTIONS)
  const headers = {
    'Content-Security-Policy': contentSecurityPolicy(html),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  }
  // swagger-ui-express's first handler answers swagger-ui-init.js (the page's options) and 404s package.json.
  const [initializer] = swaggerUi.serveFiles(undefined, OPTIONS)
  const page: RequestHandler = (_req, res) => {
    res.type('html').send(html)
  }
  const router = express.Router({ strict: true })
  router.use((_req, res, next) => {
    res.set(headers)
    next()
  })
  router.get(['/', '/index.html'], page)
  router.get('/swagger-ui-init.js', initializer)
  for (const asset of ASSETS) router.get(`/${asset}`, (_req, res) => res.sendFile(path.join(DIST, asset)))
  return router
}
