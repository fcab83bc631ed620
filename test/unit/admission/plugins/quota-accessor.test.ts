/** kube's quotaAccessor: the lister first, a remembered live lookup when it holds none, this server's last writes. */
import type { KubeObject } from '../../../../src/api';
import { quotaAccessor, type QuotaSource } from '../../../../src/admission';

const quota = (name: string, rv: string, used = '0'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'ns', resourceVersion: rv }, status: { hard: { secrets: '9' }, used: { secrets: used } } }) as KubeObject;

function source(over: Partial<QuotaSource> = {}) {
  const listed = new Map<string, KubeObject[]>();
  const live = jest.fn(async (_namespace: string): Promise<KubeObject[]> => []);
  const writeStatus = jest.fn(async (q: KubeObject): Promise<KubeObject> => ({ ...q, metadata: { ...q.metadata, resourceVersion: String(Number(q.metadata.resourceVersion) + 1) } }));
  const src: QuotaSource = { listed: (ns) => listed.get(ns) ?? [], live, writeStatus, ...over };
  return { src, listed, live, writeStatus };
}

test('the lister’s quotas are answered at once, without a live list', () => {
  const s = source();
  s.listed.set('ns', [quota('q', '5')]);
  const got = quotaAccessor(s.src).getQuotas('ns');
  expect(got).toEqual([quota('q', '5')]);
  expect(s.live).not.toHaveBeenCalled();
});

test('a namespace the lister holds nothing of is listed live once, then remembered until the TTL runs out', async () => {
  const s = source();
  let clock = 1000;
  s.live.mockResolvedValueOnce([quota('new', '7')]).mockResolvedValue([]);
  const a = quotaAccessor(s.src, { liveTtlMs: 30_000, now: () => clock });
  // A quota created moments ago that the informer has not seen is still found.
  await expect(a.getQuotas('ns')).resolves.toEqual([quota('new', '7')]);
  expect(a.getQuotas('ns')).toEqual([quota('new', '7')]);
  clock += 30_001;
  await expect(a.getQuotas('ns')).resolves.toEqual([]);
  expect(a.getQuotas('ns')).toEqual([]);
  expect(s.live).toHaveBeenCalledTimes(2);
});

test('concurrent lookups of one namespace share one live list; a failed one is not remembered', async () => {
  const s = source();
  let fail!: (e: Error) => void;
  s.live.mockImplementationOnce(() => new Promise((_, reject) => (fail = reject)));
  const a = quotaAccessor(s.src);
  const first = a.getQuotas('ns');
  const second = a.getQuotas('ns');
  expect(s.live).toHaveBeenCalledTimes(1);
  fail(new Error('etcd away'));
  await expect(first).rejects.toThrow('etcd away');
  await expect(second).rejects.toThrow('etcd away');
  await expect(a.getQuotas('ns')).resolves.toEqual([]);
  expect(s.live).toHaveBeenCalledTimes(2);
});

test('the lister wins over a remembered lookup as soon as it holds the namespace’s quotas', async () => {
  const s = source();
  const a = quotaAccessor(s.src);
  await expect(a.getQuotas('ns')).resolves.toEqual([]);
  s.listed.set('ns', [quota('q', '3')]);
  expect(a.getQuotas('ns')).toEqual([quota('q', '3')]);
});

test('this server’s last write of a quota is used while the lister’s copy is older, then dropped', async () => {
  const s = source();
  const a = quotaAccessor(s.src);
  s.listed.set('ns', [quota('q', '9')]);
  const written = await a.updateQuotaStatus(quota('q', '9', '1'));
  expect(written.metadata.resourceVersion).toBe('10');
  expect(a.getQuotas('ns')).toEqual([written]);
  // The informer catches up (a longer number is a later version): its copy again.
  s.listed.set('ns', [quota('q', '10', '1')]);
  expect(a.getQuotas('ns')).toEqual([quota('q', '10', '1')]);
  s.listed.set('ns', [quota('q', '9')]);
  expect(a.getQuotas('ns')).toEqual([quota('q', '9')]);
});

test('a fresh read is always a live list, and a failed write is not remembered', async () => {
  const s = source({ writeStatus: async () => Promise.reject(new Error('conflict')) });
  s.live.mockResolvedValue([quota('q', '4')]);
  s.listed.set('ns', [quota('q', '2')]);
  const a = quotaAccessor(s.src);
  await expect(a.getQuotas('ns', { fresh: true })).resolves.toEqual([quota('q', '4')]);
  await expect(a.updateQuotaStatus(quota('q', '2', '1'))).rejects.toThrow('conflict');
  expect(a.getQuotas('ns')).toEqual([quota('q', '2')]);
});
