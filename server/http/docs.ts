// /docs: the API reference page, rendered by swagger-ui-express from /openapi.json with a closed list of
// swagger-ui-dist's assets, under a Content-Security-Policy that lets it load nothing from elsewhere.
import crypto from 'node:crypto'
import path from 'node:path'
import express, { type RequestHandler } from 'express'
import swaggerUi from 'swagger-ui-express'

/**
 * "Try it out" sends real calls with the credentials given under "Authorize"; no validator is asked. The
 * base layout leaves out the standalone top bar, whose logo carries a <style> of its own and whose
 * "Explore" box would load any document from anywhere.
 */
const OPTIONS = { customSiteTitle: 'Quarry API', customCss: '', swaggerOptions: { url: '../openapi.json', validatorUrl: null, layout: 'BaseLayout' } }

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
