import { ageString, humanDuration } from '../../../src/api/duration';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration (kube TestHumanDuration / TestHumanDurationBoundaries)', () => {
  test.each<[number, string]>([
    [S, '1s'],
    [70 * S, '70s'],
    [190 * S, '3m10s'],
    [70 * M, '70m'],
    [47 * H, '47h'],
    [49 * H, '2d1h'],
    [(8 * 24 + 2) * H, '8d'],
    [367 * D, '367d'],
    [(365 * 2 * 24 + 25) * H, '2y1d'],
    [(365 * 8 * 24 + 2) * H, '8y'],
    [-2 * S, '<invalid>'],
    [-2 * S + 1, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [2 * M - 1, '119s'],
    [2 * M, '2m'],
    [2 * M + S, '2m1s'],
    [10 * M - 1, '9m59s'],
    [10 * M, '10m'],
    [10 * M + S, '10m'],
    [3 * H - 1, '179m'],
    [3 * H, '3h'],
    [3 * H + M, '3h1m'],
    [8 * H - 1, '7h59m'],
    [8 * H, '8h'],
    [8 * H + 59 * M, '8h'],
    [2 * D - 1, '47h'],
    [2 * D, '2d'],
    [2 * D + H, '2d1h'],
    [8 * D - 1, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 23 * H, '8d'],
    [2 * Y - 1, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 23 * H, '2y'],
    [2 * Y + 23 * H + 59 * M, '2y'],
    [2 * Y + D - 1, '2y'],
    [2 * Y + D, '2y1d'],
    [3 * Y, '3y'],
    [7 * Y, '7y'],
    [8 * Y - 1, '7y364d'],
    [8 * Y, '8y'],
    [8 * Y + 364 * D, '8y'],
    [9 * Y, '9y'],
  ])('%d ms → %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe('ageString', () => {
  const now = new Date('2024-05-01T10:20:30.500Z');
  test.each<[string | null | undefined, string]>([
    [undefined, '<unknown>'],
    [null, '<unknown>'],
    ['', '<unknown>'],
    ['0001-01-01T00:00:00Z', '<unknown>'],
    ['not a time', '<unknown>'],
    ['2024-05-01T10:20:30Z', '0s'],
    ['2024-05-01T10:15:00Z', '5m30s'],
    ['2024-04-29T09:20:30Z', '2d1h'],
    ['2024-05-01T10:20:32Z', '0s'],
    ['2024-05-01T10:20:33Z', '<invalid>'],
  ])('%j → %s', (ts, want) => {
    expect(ageString(ts, now)).toBe(want);
  });
});
