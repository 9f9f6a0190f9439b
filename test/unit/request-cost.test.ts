// Cost is known before anything runs (issue 8 item 1): bucket counts are arithmetic and agree with the
// listed buckets; metrics buckets, chart cells, a request's regex patterns and dates are capped with a 400 that says
// how to narrow the request; metrics shaping is linear. Every regex of a request, wherever it sits, counts against one
// budget and is checked by RE2 before anything runs (issue 40 items 1 and 5).
import assert from 'node:assert/strict'
import { chart } from '../../queries/charts/chart'
import { INTERVALS, bucketCount, bucketStarts, type Interval } from '../../queries/core/dates'
import { MAX_REQUEST_REGEX_CHARACTERS, MAX_REQUEST_REGEX_PATTERNS } from '../../queries/core/regex-budget'
import { metrics } from '../../queries/insights/metrics'
import { pages } from '../../queries/insights/pages'
import { entryExit } from '../../queries/insights/entry-exit'
import { sessionsList } from '../../queries/insights/sessions-list'
import { exportEvents } from '../../queries/export/export-resource'
import { funnel } from '../../queries/behaviour/funnel'
import { paths } from '../../queries/behaviour/paths'
import { retention } from '../../queries/behaviour/retention'
import { prepare, type Resource } from '../../queries/core/pipeline'
import { Random } from '../support/random'
import { SHOP_SCOPE, requestIssues } from '../support/request-issues'

const series = (items: object[]) => JSON.stringify(items)
/** The `filters` parameter of one regex filter on `path`. */
const regex = (values: string[]) => JSON.stringify([{ name: 'path', operator: 'regex', value: values }])

describe('request cost', () => {
  describe('bucketCount', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'America/New_York',
      'Asia/Kolkata',
      'Asia/Kathmandu',
      'America/St_Johns',
      'Australia/Sydney',
      'Pacific/Chatham',
    ]

    it('agrees with the listed buckets over random windows, DST changes included', () => {
      const random = new Random(8)
      const spans: Record<Interval, number> = {
        minute: 86_400_000,
        hour: 20 * 86_400_000,
        day: 400 * 86_400_000,
        week: 1500 * 86_400_000,
        month: 10_000 * 86_400_000,
      }
      for (let n = 0; n < 300; n += 1) {
        const zone = random.pick(zones)
        const interval = random.pick(INTERVALS)
        const start = Date.UTC(2020, 0, 1) + Math.floor(random.next() * 5 * 365 * 86_400_000)
        const window = { start: new Date(start), end: new Date(start + 1 + Math.floor(random.next() * spans[interval])) }
        assert.equal(
          bucketCount(window, interval, zone),
          bucketStarts(window, interval, zone).length,
          `${zone} ${interval} ${window.start.toISOString()}..${window.end.toISOString()}`,
        )
      }
    })

    it('counts across the Berlin DST changes by hand', () => {
      const spring = { start: new Date('2024-03-30T23:00:00Z'), end: new Date('2024-03-31T22:00:00Z') }
      assert.equal(bucketCount(spring, 'hour', 'Europe/Berlin'), 23)
      assert.equal(bucketCount(spring, 'day', 'Europe/Berlin'), 1)
      const autumn = { start: new Date('2024-10-26T22:00:00Z'), end: new Date('2024-10-27T23:00:00Z') }
      assert.equal(bucketCount(autumn, 'hour', 'Europe/Berlin'), 25)
      assert.equal(
        bucketCount({ start: new Date('2024-01-31T23:00:00Z'), end: new Date('2025-01-01T00:00:00Z') }, 'month', 'Europe/Berlin'),
        12,
      )
      assert.equal(bucketCount({ start: new Date('2024-04-03T12:00:00Z'), end: new Date('2024-04-16T00:00:00Z') }, 'week', 'UTC'), 3)
    })

    it('counts a millennium of days without listing them', () => {
      const window = { start: new Date('1000-01-01T00:00:00Z'), end: new Date('2000-01-01T00:00:00Z') }
      assert.equal(bucketCount(window, 'day', 'UTC'), 365_242)
      assert.equal(bucketCount(window, 'minute', 'UTC'), 365_242 * 1440)
    })
  })

  describe('metrics buckets', () => {
    it('refuses a minute series over 30 days, 12 months or since 1970, saying how to narrow it', () => {
      for (const raw of [
        { range: '30d', interval: 'minute' },
        { range: '12m', interval: 'minute' },
        { startDate: '1970-01-01', interval: 'minute' },
      ]) {
        const issues = requestIssues(metrics, raw)
        assert.equal(issues.length, 1, JSON.stringify(raw))
        assert.match(issues[0], /^interval: this series would have \d+ buckets, more than 5000: narrow the window or widen the interval$/)
      }
      assert.match(
        requestIssues(metrics, { range: '30d', interval: 'minute' })[0],
        / 43140 buckets/,
        '30 days of minutes less the hour Berlin skips on 31 March',
      )
    })

    it('keeps every default interval and a day of minutes working', () => {
      for (const raw of [
        { range: 'today', interval: 'minute' },
        { range: '7d', interval: 'hour' },
        { range: '12m', interval: 'day' },
        { startDate: '1970-01-01' },
        { startDate: '1970-01-01', interval: 'week' },
      ]) {
        assert.doesNotThrow(() => prepare(metrics, raw, SHOP_SCOPE), JSON.stringify(raw))
      }
    })

    it('shapes rows into buckets by lookup, each figure from its own bucket', () => {
      const { query } = prepare(
        metrics,
        { startDate: '2024-03-01', endDate: '2024-03-03', interval: 'day' },
        { ...SHOP_SCOPE, project: { ...SHOP_SCOPE.project, timezone: 'UTC' } },
      )
      const day2 = Date.UTC(2024, 2, 2) / 1000
      const row = (part: string, isTotal: number, bucket: number, n: number) => ({
        part,
        is_total: isTotal,
        bucket,
        session_count: n,
        bounced: 1,
        duration_total_ms: 4000 * n,
        view_count: 2 * n,
        visitor_count: n,
        revenue_total: 7 * n,
      })
      const shaped = metrics.shape(
        [row('sessions', 1, 0, 4), row('revenue', 1, 0, 3), row('sessions', 0, day2, 4), row('revenue', 0, day2, 3)],
        query,
      ).body as {
        metrics: Record<string, number>
        series: Record<string, unknown>[]
      }
      assert.deepEqual(shaped.metrics, {
        bounce_rate: 25,
        unique_visitors: 4,
        total_sessions: 4,
        avg_session_duration: 4,
        total_screen_views: 8,
        views_per_session: 2,
        total_revenue: 21,
      })
      assert.deepEqual(
        shaped.series.map((bucket) => [bucket.date, bucket.total_sessions, bucket.total_revenue]),
        [
          ['2024-03-01T00:00:00.000+00:00', 0, 0],
          ['2024-03-02T00:00:00.000+00:00', 4, 21],
          ['2024-03-03T00:00:00.000+00:00', 0, 0],
        ],
      )
    })

    it('reads each row once however many buckets there are (linear, not a search per bucket)', () => {
      const { query } = prepare(
        metrics,
        { startDate: '2024-01-01', endDate: '2024-12-31', interval: 'day' },
        { ...SHOP_SCOPE, project: { ...SHOP_SCOPE.project, timezone: 'UTC' } },
      )
      const days = Array.from({ length: 366 }, (_, n) => Date.UTC(2024, 0, 1 + n) / 1000)
      const rows = days.flatMap((bucket) =>
        ['sessions', 'revenue'].map((part) => ({
          part,
          is_total: 0,
          bucket,
          session_count: 1,
          bounced: 0,
          duration_total_ms: 0,
          view_count: 1,
          visitor_count: 1,
          revenue_total: 1,
        })),
      )
      let reads = 0
      const counted = new Proxy(rows, {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^[0-9]+$/.test(key)) reads += 1
          return Reflect.get(target, key, receiver)
        },
      })
      const shaped = metrics.shape(counted, query).body as { series: { total_sessions: number }[] }
      assert.equal(shaped.series.length, 366)
      assert.ok(shaped.series.every((bucket) => bucket.total_sessions === 1))
      assert.ok(reads <= rows.length, `${reads} row reads for ${rows.length} rows`)
    })
  })

  describe('chart cells', () => {
    it('refuses a millennium of days at once, with the arithmetic count', () => {
      const issues = requestIssues(chart, {
        series: series([{ name: '*' }]),
        interval: 'day',
        startDate: '1000-01-01',
        endDate: '1999-12-31',
      })
      assert.ok(
        issues.some((issue) => /startDate/.test(issue)),
        issues.join('\n'),
      )
      const wide = requestIssues(chart, {
        series: series([{ name: '*' }]),
        interval: 'day',
        startDate: '1970-01-01',
        endDate: '2199-12-31',
      })
      assert.deepEqual(wide, [
        `interval: this chart would have 84006 cells (lines x buckets x periods, a line per item or group), more than 20000: narrow the window, widen the interval or lower breakdownLimit`,
      ])
    })

    it('counts series, groups and periods into the cells', () => {
      const twoYearsOfDays = { series: series([{ name: '*' }]), interval: 'day', startDate: '2022-01-01', endDate: '2023-12-31' }
      assert.doesNotThrow(() => prepare(chart, twoYearsOfDays, SHOP_SCOPE))
      assert.match(
        requestIssues(chart, { ...twoYearsOfDays, breakdowns: '[{"name":"country"}]', breakdownLimit: '100' })[0],
        / 73000 cells/,
      )
      assert.doesNotThrow(
        () => prepare(chart, { ...twoYearsOfDays, series: series(Array(10).fill({ name: '*' })), previous: 'true' }, SHOP_SCOPE),
        '14,600 cells',
      )
      assert.match(
        requestIssues(chart, {
          ...twoYearsOfDays,
          startDate: '2021-01-01',
          series: series(Array(10).fill({ name: '*' })),
          previous: 'true',
        })[0],
        / 21900 cells/,
      )
    })

    it('counts a formula with breakdowns as the groups of the items it names, together', () => {
      const twoYearsOfDays = {
        interval: 'day',
        startDate: '2022-01-01',
        endDate: '2023-12-31',
        breakdowns: '[{"name":"country"}]',
        breakdownLimit: '8',
      }
      const twoItems = [{ name: 'a' }, { name: 'b' }]
      assert.doesNotThrow(
        () => prepare(chart, { ...twoYearsOfDays, series: series([...twoItems, { type: 'formula', formula: 'A*2' }]) }, SHOP_SCOPE),
        '(8 + 8 + 8) x 730 cells',
      )
      assert.match(
        requestIssues(chart, { ...twoYearsOfDays, series: series([...twoItems, { type: 'formula', formula: 'A/B+A' }]) })[0],
        / 23360 cells/,
      )
    })
  })

  describe('regex filters', () => {
    const regexFilter = (values: string[], name = 'path') => ({ name, operator: 'regex', value: values })
    /** `n` distinct patterns of 10 characters each, `^/p-0/xxxx` and so on. */
    const patterns = (n: number, tag = 'p') => Array.from({ length: n }, (_, i) => `^/${tag}-${i}/`.padEnd(10, 'x'))
    const step = (name: string, values: string[]) => ({ name, filters: [regexFilter(values)] })
    const capMessage = (count: number, characters: number) =>
      new RegExp(
        `: a request may hold at most 20 regex patterns of 1000 characters in all, .* this one holds ${count} patterns of ${characters} characters`,
      )

    it('refuses more than 20 regex values, and patterns longer than 1000 characters in all', () => {
      const many = Array.from({ length: 100 }, (_, i) => `^/(a|b|c|d|e|f|g|h)+${i}(x|y)*$`)
      const tooMany = requestIssues(pages, { filters: regex(many) })
      assert.equal(tooMany.length, 1)
      assert.match(
        tooMany[0],
        /^filters\.0\.value\.20: a request may hold at most 20 regex patterns of 1000 characters in all, .* this one holds 100 patterns of \d+ characters/,
      )
      const long = ['a'.repeat(600), 'b'.repeat(600)]
      assert.match(
        requestIssues(pages, { filters: regex(long) })[0],
        /^filters\.0\.value\.1: .*this one holds 2 patterns of 1200 characters/,
      )
      assert.doesNotThrow(() => prepare(pages, { filters: regex(Array(20).fill('^/blog/(a|b)$')) }, SHOP_SCOPE))
      assert.doesNotThrow(() =>
        prepare(pages, { filters: JSON.stringify([{ name: 'path', operator: 'is', value: Array(100).fill('/x') }]) }, SHOP_SCOPE),
      )
    })

    it('caps the patterns of the whole request, over every filter and every chart series', () => {
      const fifteen = { name: 'path', operator: 'regex', value: Array(15).fill('^/blog/(a|b)$') }
      const split = requestIssues(pages, { filters: JSON.stringify([fifteen, { ...fifteen, name: 'title' }]) })
      assert.equal(split.length, 1)
      assert.match(
        split[0],
        /^filters\.1\.value\.5: .* this one holds 30 patterns of 390 characters: combine them into fewer patterns or use another operator$/,
      )
      const seriesIssues = requestIssues(chart, {
        range: '7d',
        series: series(Array(10).fill({ name: 'screen_view', filters: [{ ...fifteen, value: fifteen.value.slice(0, 3) }] })),
      })
      assert.equal(seriesIssues.length, 1)
      assert.match(
        seriesIssues[0],
        /^series\.6\.filters\.0\.value\.2: a request may hold at most 20 regex patterns .* this one holds 30 patterns of 390 characters/,
      )
      const [half, rest] = [MAX_REQUEST_REGEX_CHARACTERS / 2, MAX_REQUEST_REGEX_PATTERNS / 2]
      const atTheCap = Array.from({ length: 2 }, () => ({
        name: 'screen_view',
        filters: [{ name: 'path', operator: 'regex', value: Array(rest).fill('x'.repeat(half / rest)) }],
      }))
      assert.doesNotThrow(
        () => prepare(chart, { range: '7d', series: series(atTheCap) }, SHOP_SCOPE),
        'exactly the caps, split over two series',
      )
      const over = [...atTheCap, { name: 'screen_view', filters: [{ name: 'path', operator: 'regex', value: ['y'] }] }]
      assert.match(
        requestIssues(chart, { range: '7d', series: series(over) })[0],
        /^series\.2\.filters\.0\.value\.0: .*holds 21 patterns of 1001 characters/,
      )
    })

    it("caps the export's filters and every insights question's the same way", () => {
      for (const [resource, raw] of [
        [exportEvents, { projectId: 'shop', filters: regex(patterns(21)) }],
        [metrics, { filters: regex(patterns(21)) }],
        [entryExit, { mode: 'entry', filters: regex(patterns(21)) }],
        [sessionsList, { filters: regex(patterns(21)) }],
      ] as const) {
        const issues = requestIssues(resource as Resource<unknown>, raw)
        assert.equal(issues.length, 1, `${resource.name}: ${issues.join('\n')}`)
        assert.match(issues[0], /^filters\.0\.value\.20: /, resource.name)
        assert.match(issues[0], capMessage(21, 210), resource.name)
      }
    })

    it('counts the leaves of a filter tree, session leaves and performed leaves alike', () => {
      const tree = (performed: number) =>
        JSON.stringify({ and: [regexFilter(patterns(12), 'country'), { performed: { filters: [regexFilter(patterns(performed, 'q'))] } }] })
      assert.doesNotThrow(() => prepare(pages, { filters: tree(8) }, SHOP_SCOPE), '12 + 8 patterns')
      assert.deepEqual(
        requestIssues(pages, { filters: tree(9) }).map((issue) => issue.split(':')[0]),
        ['filters.and.1.performed.filters.0.value.8'],
      )
      assert.match(requestIssues(pages, { filters: tree(9) })[0], capMessage(21, 210))
    })

    it("counts every funnel step's filters, and the request's filters once per step they run in", () => {
      const steps = (n: number, each: number) => JSON.stringify(Array.from({ length: n }, (_, i) => step(`e${i}`, patterns(each, `s${i}`))))
      assert.doesNotThrow(() => prepare(funnel, { steps: steps(10, 2) }, SHOP_SCOPE), '10 steps of 2 patterns')
      const overSteps = requestIssues(funnel, { steps: steps(10, 3) })
      assert.equal(overSteps.length, 1)
      assert.match(overSteps[0], /^steps\.6\.filters\.0\.value\.2: /)
      assert.match(overSteps[0], capMessage(30, 300))
      // 178 patterns of 50 characters in one step fit the request head; they are refused before anything runs.
      const wide = requestIssues(funnel, {
        steps: JSON.stringify([
          step(
            'a',
            Array.from({ length: 100 }, (_, i) => `^/${String(i).padStart(3, '0')}${'x'.repeat(44)}$`),
          ),
          'b',
        ]),
      })
      assert.match(wide[0], /^steps\.0\.filters\.0\.value\.20: .* this one holds 100 patterns of 5000 characters/)
      const shared = (n: number) => ({ steps: JSON.stringify(Array.from({ length: n }, (_, i) => `e${i}`)), filters: regex(patterns(5)) })
      assert.doesNotThrow(() => prepare(funnel, shared(4), SHOP_SCOPE), '5 shared patterns run in 4 steps: 20')
      const sharedOver = requestIssues(funnel, shared(5))
      assert.equal(sharedOver.length, 1)
      assert.match(sharedOver[0], /^filters\.0\.value\.0: /, 'the 21st use is the first shared pattern in the fifth step')
      assert.match(sharedOver[0], capMessage(25, 250))
      // Repeated step parameters, each a JSON step, count the same way.
      const repeated = requestIssues(funnel, { steps: [JSON.stringify(step('a', patterns(11))), JSON.stringify(step('b', patterns(10)))] })
      assert.match(repeated[0], /^steps\.1\.filters\.0\.value\.9: /)
    })

    it("counts retention's start and return events, and its filters once for each", () => {
      const params = (start: number, back: number, shared: number) => ({
        startEvent: JSON.stringify(step('signup', patterns(start, 's'))),
        returnEvent: JSON.stringify(step('visit', patterns(back, 'r'))),
        ...(shared ? { filters: regex(patterns(shared, 'f')) } : {}),
      })
      assert.doesNotThrow(() => prepare(retention, params(12, 8, 0), SHOP_SCOPE))
      const over = requestIssues(retention, params(12, 9, 0))
      assert.equal(over.length, 1)
      assert.match(over[0], /^returnEvent\.filters\.0\.value\.8: /)
      assert.match(over[0], capMessage(21, 210))
      assert.doesNotThrow(() => prepare(retention, params(4, 4, 6), SHOP_SCOPE), '6 x 2 + 4 + 4')
      assert.match(requestIssues(retention, params(5, 4, 6))[0], capMessage(21, 210))
    })

    it('counts the paths start step with the filters, flat or a tree', () => {
      const start = (n: number) => JSON.stringify(step('screen_view', patterns(n, 's')))
      assert.doesNotThrow(() => prepare(paths, { start: start(10), filters: regex(patterns(10)) }, SHOP_SCOPE))
      const flat = requestIssues(paths, { start: start(11), filters: regex(patterns(10)) })
      assert.equal(flat.length, 1)
      assert.match(flat[0], /^start\.filters\.0\.value\.10: /)
      assert.match(flat[0], capMessage(21, 210))
      const tree = requestIssues(paths, { start: start(15), filters: JSON.stringify({ or: [regexFilter(patterns(6), 'country')] }) })
      assert.match(tree[0], /^start\.filters\.0\.value\.14: .*holds 21 patterns/)
    })
  })

  describe('regex syntax: RE2, as the engine compiles it', () => {
    const funnelWith = (pattern: string) => ({
      steps: JSON.stringify([
        {
          name: 'a',
          filters: [
            { name: 'path', operator: 'is', value: ['/'] },
            { name: 'path', operator: 'regex', value: [pattern] },
          ],
        },
        'b',
      ]),
    })

    it('accepts RE2 syntax that JavaScript lacks: inline flags and (?P<name>...) groups', () => {
      for (const pattern of [
        '(?i)ABC',
        '(?P<n>a)',
        '(?<n>a)',
        '\\pL+',
        '[[:alpha:]]+',
        '\\Q.*\\E',
        '\\C',
        '(?U)a+',
        '\\z',
        'a{1000}',
        '(a{10}){100}',
      ]) {
        assert.doesNotThrow(() => prepare(pages, { filters: regex([pattern]) }, SHOP_SCOPE), pattern)
        assert.doesNotThrow(() => prepare(funnel, funnelWith(pattern), SHOP_SCOPE), pattern)
      }
    })

    it('refuses what RE2 refuses, at the parameter that holds the pattern', () => {
      const refused: [string, RegExp][] = [
        ['a{1001}', /invalid repetition size: \{1001\}/],
        ['(a{100}){100}', /invalid repetition size/],
        ['\\cA', /invalid escape sequence: \\c/],
        ['\\p{Foo}', /invalid character class range: \\p\{Foo\}/],
        ['[[:foo:]]', /invalid character class range: \[:foo:\]/],
        ['^(?=a)b', /invalid perl operator: \(\?=/],
        ['(a)\\1', /invalid escape sequence: \\1/],
        ['(', /missing \)/],
        ['x{2}{3}', /bad repetition operator/],
      ]
      for (const [pattern, message] of refused) {
        const issues = requestIssues(funnel, funnelWith(pattern))
        assert.equal(issues.length, 1, `${pattern}: ${issues.join('\n')}`)
        assert.ok(issues[0].startsWith('steps.0.filters.1.value.0: invalid regular expression: '), issues[0])
        assert.match(issues[0], message)
        assert.match(requestIssues(pages, { filters: regex(['ok', pattern]) })[0], /^filters\.0\.value\.1: invalid regular expression: /)
      }
    })

    it('counts the Unicode classes the patterns name, at most 10 in all', () => {
      const named = (n: number) => Array.from({ length: n }, (_, i) => `^/${i}/\\p{Greek}+`)
      const shared = regex(['\\\\p', '[\\pL\\p{Greek}]'])
      assert.doesNotThrow(
        () =>
          prepare(
            retention,
            { startEvent: JSON.stringify({ name: 'a', filters: [{ name: 'path', operator: 'regex', value: named(5) }] }), filters: shared },
            SHOP_SCOPE,
          ),
        '5 + 2 x 2 classes: \\\\p is a backslash and a p',
      )
      const over = requestIssues(retention, {
        startEvent: JSON.stringify({ name: 'a', filters: [{ name: 'path', operator: 'regex', value: named(7) }] }),
        filters: regex(['[\\pL\\P{Greek}]']),
      })
      assert.equal(over.length, 1)
      assert.match(
        over[0],
        /^startEvent\.filters\.0\.value\.6: .*naming at most 10 Unicode classes .* this one holds 9 patterns of \d+ characters naming 11 Unicode classes: /,
      )
    })

    it('compiles in full at most 2 patterns a request that outgrow the small program, refused or not', () => {
      const issues = requestIssues(pages, { filters: regex(['^/blog/', '.{200}', '(?i)[a-z]{150}', '[0-9a-f]{300}', '^/docs/[0-9]{4}/']) })
      assert.deepEqual(
        issues.map((issue) => issue.split(': ')[0]),
        ['filters.0.value.3'],
        'the third large pattern; a short repetition fits the small program',
      )
      assert.match(issues[0], /already holds 2 patterns that compile to more than 8 KiB of RE2 program/)
      const refusedCounts = requestIssues(pages, { filters: regex(['\\pL{100}', '.{200}', '(?i)[a-z]{150}']) })
      assert.deepEqual(
        refusedCounts.map((issue) => issue.split(': ')[0]),
        ['filters.0.value.0', 'filters.0.value.2'],
      )
      assert.match(refusedCounts[0], /the pattern is too large: it compiles to more than 64 KiB/)
      assert.match(refusedCounts[1], /already holds 2 patterns/, 'a large pattern compiled in full and refused counts too')
    })

    it('compiles nothing past the budget: the 400 names the cap alone', () => {
      const issues = requestIssues(funnel, {
        steps: JSON.stringify([{ name: 'a', filters: [{ name: 'path', operator: 'regex', value: Array(21).fill('(') }] }, 'b']),
      })
      assert.deepEqual(
        issues.map((issue) => issue.split(': ')[0]),
        ['steps.0.filters.0.value.20'],
      )
    })

    it('lists a refused pattern with the other problems of a tree', () => {
      const tree = {
        and: [
          { name: 'country', operator: 'regex', value: ['(?i)de', '\\cA'] },
          {
            performed: {
              filters: [
                { name: 'nope', operator: 'is', value: ['x'] },
                { name: 'path', operator: 'regex', value: ['a{1001}'] },
              ],
            },
          },
        ],
      }
      assert.deepEqual(
        requestIssues(pages, { filters: JSON.stringify(tree) })
          .map((issue) => issue.split(': ')[0])
          .sort(),
        ['filters.and.0.value.1', 'filters.and.1.performed.filters.0.name', 'filters.and.1.performed.filters.1.value.0'],
      )
    })

    it('refuses a pattern whose compiled program is past the cap, before the engine compiles it', () => {
      const issues = requestIssues(retention, {
        startEvent: JSON.stringify({ name: 'a', filters: [{ name: 'path', operator: 'regex', value: ['\\pL{200}'] }] }),
      })
      assert.deepEqual(
        issues.map((issue) => issue.split(': ')[0]),
        ['startEvent.filters.0.value.0'],
      )
      assert.match(issues[0], /too large/)
    })
  })

  describe('dates', () => {
    it('refuses dates before 1970 or after 2199, listing each', () => {
      assert.deepEqual(requestIssues(pages, { startDate: '2024-01-01', endDate: '9999-12-31' }), [
        'endDate: "endDate" must be YYYY-MM-DD or an ISO date-time with Z or an offset, from 1970-01-01 to 2199-12-31, got "9999-12-31"',
      ])
      assert.deepEqual(requestIssues(pages, { startDate: '1969-12-31T23:00:00Z', endDate: '2200-01-01T00:00:00+01:00' }).length, 2)
      assert.doesNotThrow(() => prepare(pages, { startDate: '1970-01-01', endDate: '2199-12-31' }, SHOP_SCOPE))
    })
  })
})
