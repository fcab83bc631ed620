import { timestamp } from '../../../src/api';

describe('timestamp (metav1.Time: RFC 3339, whole seconds, UTC)', () => {
  it.each([
    ['2026-11-22T13:15:00.123Z', '2026-11-22T13:15:00Z'],
    ['2026-11-22T13:15:00.999Z', '2026-11-22T13:15:00Z'], // truncated, as Go's Time.Format, not rounded
    ['1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00Z'],
  ])('%s → %s', (at, want) => {
    expect(timestamp(new Date(at))).toBe(want);
  });
});
