// A minimal but strict parser of Prometheus' text exposition format (version 0.0.4), for tests that
// scrape the metrics listener: anything a Prometheus server would reject throws here.

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'
  help?: string
  samples: Sample[]
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
}

/** As Prometheus reads values (Go's ParseFloat): the special values in any letter case, so prom-client's `Nan` too. */
function parseValue(text: string, line: number): number {
  const special = text.toLowerCase()
  if (special === '+inf' || special === 'inf') return Infinity
  if (special === '-inf') return -Infinity
  if (special === 'nan') return NaN
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`line ${line}: "${text}" is not a sample value`)
  return Number(text)
}

/** `{a="x",b="y"}` starting at `text[0]`: the labels and the length consumed. */
function parseLabels(text: string, line: number): { labels: Record<string, string>; length: number } {
  const labels: Record<string, string> = {}
  let at = 1
  while (text[at] !== '}') {
    const equals = text.indexOf('=', at)
    const name = text.slice(at, equals)
    if (equals < 0 || !LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name "${name}"`)
    if (name in labels) throw new Error(`line ${line}: label "${name}" twice`)
    if (text[equals + 1] !== '"') throw new Error(`line ${line}: label "${name}" value is not quoted`)
    let value = ''
    let i = equals + 2
    for (; i < text.length && text[i] !== '"'; i++) {
      if (text[i] === '\n') throw new Error(`line ${line}: raw newline in a label value`)
      if (text[i] !== '\\') {
        value += text[i]
        continue
      }
      const escaped = text[++i]
      if (escaped === 'n') value += '\n'
      else if (escaped === '\\' || escaped === '"') value += escaped
      else throw new Error(`line ${line}: bad escape "\\${escaped}" in label "${name}"`)
    }
    if (i >= text.length) throw new Error(`line ${line}: unterminated label value`)
    labels[name] = value
    at = i + 1
    if (text[at] === ',') at++
    else if (text[at] !== '}') throw new Error(`line ${line}: expected "," or "}" after label "${name}"`)
  }
  return { labels, length: at + 1 }
}

function familyOf(families: Map<string, Family>, sampleName: string): Family | undefined {
  for (const family of families.values()) {
    if (SUFFIXES[family.type].some((suffix) => sampleName === family.name + suffix)) return family
  }
  return undefined
}

function checkHistogram(family: Family): void {
  const series = new Map<string, Sample[]>()
  for (const sample of family.samples) {
    if (!sample.name.endsWith('_bucket')) continue
    if (!('le' in sample.labels)) throw new Error(`${family.name}: a bucket without "le"`)
    const { le: _le, ...rest } = sample.labels
    const key = JSON.stringify(rest)
    series.set(key, [...(series.get(key) ?? []), sample])
  }
  for (const [key, buckets] of series) {
    const last = buckets[buckets.length - 1]
    if (last.labels.le !== '+Inf') throw new Error(`${family.name}${key}: the last bucket is not le="+Inf"`)
    for (let i = 1; i < buckets.length; i++) {
      if (parseValue(buckets[i].labels.le, 0) <= parseValue(buckets[i - 1].labels.le, 0) || buckets[i].value < buckets[i - 1].value) {
        throw new Error(`${family.name}${key}: buckets are not cumulative in increasing "le"`)
      }
    }
    const count = family.samples.find((sample) => sample.name === `${family.name}_count` && JSON.stringify(sample.labels) === key)
    if (!count || count.value !== last.value) throw new Error(`${family.name}${key}: _count differs from the +Inf bucket`)
  }
}

/** Every metric family of a scrape, by name. Throws on the first line a scraper would refuse. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>()
  const seen = new Set<string>()
  const lines = text.split('\n')
  if (lines.pop() !== '') throw new Error('the exposition does not end with a newline')
  lines.forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === '') return
    const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(raw)
    if (meta) {
      const [, kind, name, rest = ''] = meta
      if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name "${name}"`)
      const family = families.get(name) ?? { name, type: 'untyped' as const, samples: [] }
      if (kind === 'TYPE') {
        if (families.has(name) && (family.samples.length || seen.has(`TYPE ${name}`)))
          throw new Error(`line ${line}: TYPE of "${name}" after its samples or twice`)
        if (!TYPES.has(rest)) throw new Error(`line ${line}: unknown type "${rest}"`)
        family.type = rest as Family['type']
      } else {
        if (seen.has(`HELP ${name}`)) throw new Error(`line ${line}: HELP of "${name}" twice`)
        family.help = rest
      }
      seen.add(`${kind} ${name}`)
      families.set(name, family)
      return
    }
    if (raw.startsWith('#')) return
    const name = /^[^\s{]+/.exec(raw)?.[0] ?? ''
    if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name "${name}"`)
    let rest = raw.slice(name.length)
    let labels: Record<string, string> = {}
    if (rest.startsWith('{')) {
      const parsed = parseLabels(rest, line)
      labels = parsed.labels
      rest = rest.slice(parsed.length)
    }
    const fields = rest.split(' ')
    if (fields[0] !== '' || fields.length < 2 || fields.length > 3)
      throw new Error(`line ${line}: expected "name{labels} value [timestamp]"`)
    const value = parseValue(fields[1], line)
    if (fields[2] !== undefined && !/^-?\d+$/.test(fields[2])) throw new Error(`line ${line}: bad timestamp "${fields[2]}"`)
    const family = familyOf(families, name) ?? (families.has(name) ? undefined : { name, type: 'untyped' as const, samples: [] })
    if (!family) throw new Error(`line ${line}: "${name}" does not belong to its declared family`)
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`
    if (seen.has(series)) throw new Error(`line ${line}: series ${series} twice`)
    seen.add(series)
    family.samples.push({ name, labels, value })
    families.set(family.name, family)
  })
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family)
  return families
}

/** The value of the one sample named `name` whose labels include `labels`; throws when none or several match. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const matches = [...families.values()]
    .flatMap((family) => family.samples)
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
  if (matches.length !== 1) throw new Error(`expected one sample ${name}${JSON.stringify(labels)}, found ${matches.length}`)
  return matches[0].value
}

/** Requests to `/export/events` a gateway's metrics count as ended before their answer was complete (499). */
export async function cutExports(registry: { metrics(): Promise<string> }): Promise<number> {
  return [...parsePrometheusText(await registry.metrics()).values()]
    .flatMap((family) => family.samples)
    .filter(
      (sample) =>
        sample.name === 'quarry_http_requests_total' && sample.labels.route === '/export/events' && sample.labels.status === '499',
    )
    .reduce((sum, sample) => sum + sample.value, 0)
}
