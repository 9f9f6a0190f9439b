// /docs in headless Chromium, served by a gateway with a demo project: the introduction and the funnel's
// worked example are on the page on arrival, the breakdowns folded; every operation of /openapi.json is
// listed; "Try it out" on the funnel example, with the demo credentials, answers 200; a real call to
// /insights/{projectId}/metrics sent with Basic credentials renders a hand-worked 200; nothing is loaded
// from anywhere but the gateway (from /docs/ or /docs/index.html), and the page runs under its
// Content-Security-Policy without a violation. Saves screenshots under test/artifacts/.
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { Server } from 'node:http'
import puppeteer, { type Browser, type HTTPResponse, type Page } from 'puppeteer-core'
import { createApiClient, createProject } from '../../server/admin/control'
import { ensureDemo, type DemoCredentials } from '../../server/admin/demo'
import { createApp } from '../../server/http/app'
import { buildOpenApi } from '../../server/http/openapi'
import { ROUTES } from '../../server/routes/routes'
import { createLogger } from '../../server/logger'
import { insertRawEvents, startHarness, type Harness } from '../support/harness'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARTIFACTS = path.join(__dirname, '..', 'artifacts')
// Chromium's own background traffic is refused on closed networks; these flags keep it quiet.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]

describe('/docs in a browser', function () {
  this.timeout(180_000)
  let h: Harness
  let server: Server
  let origin: string
  let browser: Browser
  let page: Page
  let userDataDir: string
  const requested: string[] = []
  let credentials: { id: string; secret: string }
  let demo: DemoCredentials
  let response: HTTPResponse | null
  const documented = () =>
    Object.entries(buildOpenApi(ROUTES).paths).flatMap(([route, item]) =>
      Object.keys(item as object)
        .filter((method) => ['get', 'post'].includes(method))
        .map((method) => `${method.toUpperCase()} ${route}`),
    )
  const listedOperations = () =>
    page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (block) =>
          `${block.querySelector('.opblock-summary-method')?.textContent} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    )

  /** Authorizes the page with Basic credentials, replacing any given before. */
  async function authorize(id: string, secret: string) {
    await page.click('.btn.authorize')
    await page.waitForSelector('.modal-ux')
    const logout = await page.$$('.modal-ux button.button')
    for (const button of logout) if ((await button.evaluate((element) => element.textContent)) === 'Logout') await button.click()
    await page.waitForSelector('#auth-basic-username')
    await page.type('#auth-basic-username', id)
    await page.type('#auth-basic-password', secret)
    await page.$eval('#auth-basic-username', (input) =>
      (input.closest('form')!.querySelector('button[type=submit]') as HTMLButtonElement).click(),
    )
    await page.click('.btn-done')
  }

  /** Replaces the text of an input (Swagger UI fills inputs with the examples). */
  async function typeOver(selector: string, text: string) {
    await page.click(selector, { clickCount: 3 })
    await page.keyboard.press('Backspace')
    await page.type(selector, text)
  }

  /** Records the page's Content-Security-Policy violations in `window.violations`. */
  const recordViolations = (target: Page) =>
    target.evaluateOnNewDocument(() => {
      const violations: string[] = []
      Object.assign(window, { violations })
      document.addEventListener('securitypolicyviolation', (event) => violations.push(`${event.violatedDirective} ${event.blockedURI}`))
    })
  const violationsOf = (target: Page) => target.evaluate(() => (window as unknown as { violations: string[] }).violations)

  before(async () => {
    h = await startHarness({ env: { QUARRY_RATE_LIMIT: '1000000' } })
    // What a first start does: the demo project, seeded, and its read client's credentials in a file.
    demo = (await ensureDemo(h.engine, 20_000, () => undefined))!.credentials
    h.app = createApp({
      config: h.config,
      runner: h.runner,
      directory: h.directory,
      logger: createLogger('error', true),
      demoProjectId: demo.projectId,
    })
    await createProject(h.engine, { id: 'docs-shop', timezone: 'Europe/Berlin' })
    const now = Date.now()
    await insertRawEvents(
      h.engine,
      [0, 1, 2].map((i) => ({
        id: crypto.randomUUID(),
        name: 'screen_view',
        device_id: 'd1',
        session_id: 's1',
        path: `/p${i}`,
        created_at: new Date(now - 3_600_000 + i * 60_000).toISOString(),
      })),
      'docs-shop',
    )
    credentials = await createApiClient(h.engine, { type: 'read', projectId: 'docs-shop' })
    server = h.app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-chromium-'))
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, userDataDir })
    page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 1000 })
    page.on('request', (request) => requested.push(request.url()))
    await recordViolations(page)
    response = await page.goto(`${origin}/docs`, { waitUntil: 'networkidle0' })
    await page.waitForSelector('.opblock')
  })

  const funnel = '#operations-Behaviour-insightsFunnel'

  it('opens with the introduction and the funnel worked example, the breakdowns folded', async () => {
    const intro = await page.$eval('.information-container .info', (element) => element.textContent ?? '')
    assert.match(intro, /Authentication/)
    assert.match(intro, /demo-credentials\.json/)
    assert.match(
      intro,
      /curl -s -u "\$CLIENT_ID:\$CLIENT_SECRET" 'http:\/\/localhost:3000\/insights\/demo\/metrics\?range=30d&interval=day'/,
    )
    await page.waitForSelector(`${funnel} tr[data-param-name="steps"]`)
    const steps = await page.$$eval(`${funnel} tr[data-param-name="steps"] input`, (inputs) =>
      inputs.map((input) => (input as HTMLInputElement).value).join(' '),
    )
    assert.match(steps, /"name":"screen_view","filters":\[\{"name":"path","operator":"startsWith","value":\["\/products\/"\]\}\]/)
    assert.match(steps, /add_to_cart/)
    const folded = (await listedOperations()).filter((operation) =>
      /\/insights\/\{projectId\}\/(country|referrer|os_version)$/.test(operation),
    )
    assert.deepEqual(folded, [], 'the breakdowns start folded')
    await page.setViewport({ width: 1280, height: 2200 })
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs.png') })
    await page.setViewport({ width: 1280, height: 1000 })
  })

  it('answers 200 to "Try it out" on the funnel example with the demo credentials', async () => {
    await authorize(demo.clientId, demo.clientSecret)
    await page.click(`${funnel} .try-out__btn`)
    const sent = page.waitForRequest((request) => request.url().startsWith(`${origin}/insights/demo/funnel?`))
    await page.click(`${funnel} .btn.execute`)
    const request = new URL((await sent).url())
    assert.deepEqual(request.searchParams.getAll('steps'), [
      JSON.stringify({ name: 'screen_view', filters: [{ name: 'path', operator: 'startsWith', value: ['/products/'] }] }),
      'add_to_cart',
      'purchase',
    ])
    const statusCell = `${funnel} .live-responses-table .response .response-col_status`
    await page.waitForSelector(statusCell)
    assert.equal((await page.$eval(statusCell, (cell) => cell.textContent ?? '')).trim(), '200')
    const body = JSON.parse(
      await page.$eval(`${funnel} .live-responses-table .response .response-col_description pre`, (cell) => cell.textContent ?? ''),
    )
    assert.deepEqual(
      body.steps.map((step: { eventName: string }) => step.eventName),
      ['screen_view', 'add_to_cart', 'purchase'],
    )
    assert.ok(body.steps[0].users > 0, JSON.stringify(body.steps))
    await page.$eval(`${funnel} .live-responses-table`, (element) => element.scrollIntoView({ block: 'center' }))
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-funnel.png') })
  })

  after(async () => {
    await browser?.close()
    if (server) await new Promise((resolve) => server.close(resolve))
    await h?.close()
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true })
  })

  it('lists every operation of /openapi.json once the breakdowns are unfolded', async () => {
    await page.click('#operations-tag-Breakdowns')
    await page.waitForSelector('#operations-Breakdowns-insightsCountry')
    assert.deepEqual([...(await listedOperations())].sort(), [...documented()].sort())
  })

  it('sends /insights/{projectId}/metrics with Basic credentials from the page and renders the 200', async () => {
    await authorize(credentials.id, credentials.secret)

    const operation = '#operations-Overview-insightsMetrics'
    await page.click(`${operation} .opblock-summary-control`)
    await page.waitForSelector(`${operation} .try-out__btn`)
    await page.click(`${operation} .try-out__btn`)
    await typeOver(`${operation} tr[data-param-name="projectId"] input`, 'docs-shop')
    await page.select(`${operation} tr[data-param-name="filters"] select`, 'none')
    const sent = page.waitForRequest((request) => request.url().startsWith(`${origin}/insights/docs-shop/metrics`))
    await page.click(`${operation} .btn.execute`)
    const request = await sent
    assert.equal(new URL(request.url()).searchParams.get('timezone'), 'UTC', 'the examples are sent')
    assert.equal(request.headers().authorization, `Basic ${Buffer.from(`${credentials.id}:${credentials.secret}`).toString('base64')}`)

    const statusCell = `${operation} .live-responses-table .response .response-col_status`
    await page.waitForSelector(statusCell)
    assert.equal((await page.$eval(statusCell, (cell) => cell.textContent ?? '')).trim(), '200')
    const body = await page.$eval(
      `${operation} .live-responses-table .response .response-col_description`,
      (cell) => cell.textContent ?? '',
    )
    assert.match(body, /"total_sessions": 1/, request.url())

    await page.$eval(`${operation} .live-responses-table`, (element) => element.scrollIntoView({ block: 'center' }))
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-metrics.png') })
  })

  it('answers the page with a Content-Security-Policy, nosniff and no framing, and breaks none of it', async () => {
    const headers = response?.headers() ?? {}
    assert.equal(response?.url(), `${origin}/docs/`)
    assert.match(headers['content-security-policy'] ?? '', /^default-src 'self'; /)
    assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/)
    assert.equal(headers['x-content-type-options'], 'nosniff')
    assert.deepEqual(await violationsOf(page), [])
  })

  it("loads only the gateway's own page at /docs/index.html, never swagger-ui-dist's Petstore one", async () => {
    const other = await browser.newPage()
    const fetched: string[] = []
    other.on('request', (request) => fetched.push(request.url()))
    await recordViolations(other)
    try {
      await other.goto(`${origin}/docs/index.html`, { waitUntil: 'networkidle0' })
      assert.deepEqual(
        fetched.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
        [],
      )
      await other.waitForSelector('.opblock')
      assert.ok(fetched.includes(`${origin}/openapi.json`), fetched.join(', '))
      assert.deepEqual(await violationsOf(other), [])
    } finally {
      await other.close()
    }
  })

  it('loads nothing from outside the gateway', () => {
    assert.ok(requested.length > 3, `the page loaded its assets: ${requested.join(', ')}`)
    const outside = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))
    assert.deepEqual(outside, [])
  })
})
