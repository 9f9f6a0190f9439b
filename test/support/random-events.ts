// A randomized raw dataset for differential tests: visitors, sessions of 1..8 events with realistic
// gaps (a few longer than a day apart is avoided: sessions stay under the session lookback), values
// with quotes, unicode and empties, numeric and non-numeric properties, ties on created_at.
import type { RawEvent } from '../reference/model'
import { Random } from './random'

export const CHOICES = {
  paths: ['/', '/pricing', '/über-uns', '/产品', '/blog/a', '/blog/b', '/Blog/C', '/docs', '/docs/api', "/it's"],
  origins: ['https://a.example', 'https://b.example'],
  titles: ['Home', 'Pricing', '', 'Über uns', 'Docs "beta"', 'Blog'],
  referrers: [
    { referrer: '', referrer_name: '', referrer_type: '' },
    { referrer: 'https://www.google.com/', referrer_name: 'Google', referrer_type: 'search' },
    { referrer: 'https://t.co/x', referrer_name: 'Twitter', referrer_type: 'social' },
    { referrer: 'https://news.example/item?id=1', referrer_name: 'news.example', referrer_type: 'link' },
  ],
  utmSources: ['', '', 'newsletter', 'google', 'Partner "X"'],
  places: [
    { country: 'DE', region: 'Berlin', city: 'Berlin' },
    { country: 'DE', region: 'Bavaria', city: 'Munich' },
    { country: 'US', region: 'California', city: 'San Francisco' },
    { country: 'US', region: 'New York', city: 'New York' },
    { country: '', region: '', city: '' },
  ],
  devices: [
    { device: 'desktop', brand: '', model: '', os: 'Windows', os_version: '11', browser: 'Chrome', browser_version: '124' },
    { device: 'mobile', brand: 'Apple', model: 'iPhone 15', os: 'iOS', os_version: '17.4', browser: 'Safari', browser_version: '17' },
    { device: 'mobile', brand: 'Samsung', model: 'Galaxy S23', os: 'Android', os_version: '14', browser: 'Chrome', browser_version: '123' },
    { device: 'tablet', brand: 'Apple', model: 'iPad', os: 'iOS', os_version: '16.6', browser: 'Safari', browser_version: '16' },
  ],
  customEvents: ['add_to_cart', 'signup', 'purchase'],
  plans: ['free', 'pro', "team's", 'pro "annual"', ''],
  prices: ['5', '12.5', '100', 'n/a', '1e2', '-3', ''],
  groups: ['team-a', 'team-b', 'org-1'],
}

const MINUTE = 60_000

export function randomEvents(seed: number, options: { sessions: number; from: Date; days: number }): RawEvent[] {
  const random = new Random(seed)
  const visitors = Array.from({ length: Math.max(3, Math.floor(options.sessions / 3)) }, (_, index) => ({
    device: `dev-${seed}-${index}`,
    profile: random.chance(0.3) ? `user-${seed}-${index}` : undefined,
  }))
  const events: RawEvent[] = []
  for (let s = 0; s < options.sessions; s += 1) {
    const visitor = random.pick(visitors)
    const sessionId = `s-${seed}-${s}`
    const attributes = {
      ...random.pick(CHOICES.referrers),
      ...random.pick(CHOICES.places),
      ...random.pick(CHOICES.devices),
      utm_source: random.pick(CHOICES.utmSources),
    }
    let time = options.from.getTime() + random.int(0, options.days * 24 * 60) * MINUTE + random.int(0, 59_999)
    const length = random.chance(0.4) ? 1 : random.int(2, 8)
    for (let e = 0; e < length; e += 1) {
      const custom = e > 0 && random.chance(0.25)
      const name = custom ? random.pick(CHOICES.customEvents) : e === 0 && random.chance(0.1) ? 'session_start' : 'screen_view'
      const properties: Record<string, string> = {}
      if (custom || random.chance(0.2)) {
        properties.price = random.pick(CHOICES.prices)
        properties.plan = random.pick(CHOICES.plans)
      }
      events.push({
        id: random.uuid(),
        name,
        device_id: visitor.device,
        ...(visitor.profile ? { profile_id: visitor.profile } : {}),
        session_id: sessionId,
        created_at: new Date(time).toISOString(),
        path: random.pick(CHOICES.paths),
        origin: random.pick(CHOICES.origins),
        title: random.pick(CHOICES.titles),
        ...attributes,
        revenue: name === 'purchase' ? random.int(100, 20_000) : 0,
        duration: name === 'screen_view' ? random.int(0, 60) * 500 : 0,
        groups: random.chance(0.3) ? CHOICES.groups.filter(() => random.chance(0.5)) : [],
        properties,
      })
      // Mostly seconds to minutes apart, sometimes the same millisecond (ties broken by id).
      time += random.chance(0.08) ? 0 : random.int(1, 20 * 60) * 1000 + random.int(0, 999)
    }
  }
  return events
}
