// The whole UTC days entry and exit pages read a row per page and day of (sessions/rollup-days.sql):
// every hour of the window falls in exactly one of [start, wholeFrom), [wholeFrom, wholeTo) and [wholeTo, end).
import assert from 'node:assert/strict'
import { wholeDays } from '../../queries/sessions/rollup-rows'

const at = (text: string) => new Date(text)

describe('wholeDays', () => {
  const cases: { name: string; start: string; end: string; wholeFrom: string; wholeTo: string }[] = [
    {
      name: 'UTC days: every day whole',
      start: '2024-03-01T00:00:00Z',
      end: '2024-03-08T00:00:00Z',
      wholeFrom: '2024-03-01 00:00:00.000',
      wholeTo: '2024-03-08 00:00:00.000',
    },
    {
      name: 'Berlin days: an hour before the first midnight and none after the last',
      start: '2025-12-01T23:00:00Z',
      end: '2025-12-31T23:00:00Z',
      wholeFrom: '2025-12-02 00:00:00.000',
      wholeTo: '2025-12-31 00:00:00.000',
    },
    {
      name: 'a window ending at midnight, starting within a day',
      start: '2024-03-01T05:00:00Z',
      end: '2024-03-02T00:00:00Z',
      wholeFrom: '2024-03-02 00:00:00.000',
      wholeTo: '2024-03-02 00:00:00.000',
    },
    {
      name: 'one Berlin day over two UTC days: no whole day',
      start: '2024-03-04T23:00:00Z',
      end: '2024-03-05T23:00:00Z',
      wholeFrom: '2024-03-05 23:00:00.000',
      wholeTo: '2024-03-05 23:00:00.000',
    },
    {
      name: 'hours within one UTC day: no whole day',
      start: '2024-03-05T10:00:00Z',
      end: '2024-03-05T15:00:00Z',
      wholeFrom: '2024-03-05 15:00:00.000',
      wholeTo: '2024-03-05 15:00:00.000',
    },
  ]
  for (const { name, start, end, wholeFrom, wholeTo } of cases) {
    it(name, () => {
      assert.deepEqual(wholeDays({ start: at(start), end: at(end) }), { wholeFrom, wholeTo })
    })
  }
})
