// The parts a discovery question reads its window in (queries/discovery/discovery-window.ts): UTC days,
// the whole hours at the edges, the minutes left over; table-driven, each case's parts written out.
import assert from 'node:assert/strict'
import { splitWindow } from '../../queries/discovery/discovery-window'

const at = (text: string) => new Date(text)
const iso = (date: Date) => date.toISOString()

const CASES: { name: string; start: string; end: string; parts: [string, string, string, string] }[] = [
  {
    name: 'UTC days: all days, no hours, no events',
    start: '2024-03-01T00:00:00.000Z',
    end: '2024-03-31T00:00:00.000Z',
    parts: ['2024-03-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z', '2024-03-31T00:00:00.000Z', '2024-03-31T00:00:00.000Z'],
  },
  {
    name: 'Berlin days (UTC+1, then +2 after the DST change): an hour at the start, 22 at the end',
    start: '2024-03-29T23:00:00.000Z',
    end: '2024-03-31T22:00:00.000Z',
    parts: ['2024-03-29T23:00:00.000Z', '2024-03-30T00:00:00.000Z', '2024-03-31T00:00:00.000Z', '2024-03-31T22:00:00.000Z'],
  },
  {
    name: 'Kolkata days (UTC+5:30): half hours of events at both edges',
    start: '2024-03-29T18:30:00.000Z',
    end: '2024-03-31T18:30:00.000Z',
    parts: ['2024-03-29T19:00:00.000Z', '2024-03-30T00:00:00.000Z', '2024-03-31T00:00:00.000Z', '2024-03-31T18:00:00.000Z'],
  },
  {
    name: 'hours without a whole day: no day part (empty at the hours end)',
    start: '2024-03-01T10:15:00.000Z',
    end: '2024-03-01T20:00:00.000Z',
    parts: ['2024-03-01T11:00:00.000Z', '2024-03-01T20:00:00.000Z', '2024-03-01T20:00:00.000Z', '2024-03-01T20:00:00.000Z'],
  },
  {
    name: 'half an hour across an hour: events only, every part empty at the end',
    start: '2024-03-01T09:45:00.000Z',
    end: '2024-03-01T10:15:00.000Z',
    parts: ['2024-03-01T10:15:00.000Z', '2024-03-01T10:15:00.000Z', '2024-03-01T10:15:00.000Z', '2024-03-01T10:15:00.000Z'],
  },
  {
    name: 'milliseconds inside one hour: events only',
    start: '2024-03-01T09:00:00.001Z',
    end: '2024-03-01T09:59:59.999Z',
    parts: ['2024-03-01T09:59:59.999Z', '2024-03-01T09:59:59.999Z', '2024-03-01T09:59:59.999Z', '2024-03-01T09:59:59.999Z'],
  },
  {
    name: 'exactly one whole hour: the hour part only',
    start: '2024-03-01T09:00:00.000Z',
    end: '2024-03-01T10:00:00.000Z',
    parts: ['2024-03-01T09:00:00.000Z', '2024-03-01T10:00:00.000Z', '2024-03-01T10:00:00.000Z', '2024-03-01T10:00:00.000Z'],
  },
]

describe('splitWindow', () => {
  for (const { name, start, end, parts } of CASES) {
    it(name, () => {
      const { parts: split } = splitWindow({ window: { start: at(start), end: at(end) } })
      assert.deepEqual([split.hoursFrom, split.daysFrom, split.daysTo, split.hoursTo].map(iso), parts)
    })
  }

  it('keeps start <= hoursFrom <= daysFrom <= daysTo <= hoursTo <= end, with hour and day bounds whole, for any window', () => {
    for (let n = 0; n < 2000; n += 1) {
      const start = Date.UTC(2024, 0, 1) + Math.floor(((n * 7919) % 100_003) * 1_234.567)
      const end = start + 1 + Math.floor(((n * 104_729) % 99_991) * (n % 3 === 0 ? 17 : n % 3 === 1 ? 3_607 : 86_413))
      const { parts } = splitWindow({ window: { start: new Date(start), end: new Date(end) } })
      const bounds = [start, parts.hoursFrom.getTime(), parts.daysFrom.getTime(), parts.daysTo.getTime(), parts.hoursTo.getTime(), end]
      for (let index = 1; index < bounds.length; index += 1)
        assert.ok(bounds[index - 1] <= bounds[index], `${new Date(start).toISOString()}..${new Date(end).toISOString()}: ${bounds}`)
      if (parts.hoursFrom < parts.hoursTo)
        assert.ok(parts.hoursFrom.getTime() % 3_600_000 === 0 && parts.hoursTo.getTime() % 3_600_000 === 0)
      if (parts.daysFrom < parts.daysTo) assert.ok(parts.daysFrom.getTime() % 86_400_000 === 0 && parts.daysTo.getTime() % 86_400_000 === 0)
    }
  })
})
