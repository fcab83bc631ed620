/**
 * EventRateLimit admission: its configuration (kube's decoding, validation and messages), the token
 * bucket (burst, then qps a second, rolled over up to burst), each limit type's key, the LRU of
 * buckets (an evicted bucket comes back full), and the 429 kube answers. Time is an injected clock.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AdmissionAttributes } from '../../src/admission';
import { kubeDefaultOnAdmissionPlugins } from '../../src/admission';
import { newAdmissionPlugins } from '../../src/admission/register-all';
import { ApiError, type KubeObject, type RequestContext } from '../../src/api';
import { eventRateLimit } from '../../src/admission/plugins/event-rate-limit';
import { eventRateLimitConfigKind, loadEventRateLimitConfig, type EventRateLimitConfiguration, type Limit } from '../../src/admission/plugins/event-rate-limit/config';
import { DEFAULT_CACHE_SIZE, GrowingLru, LimitEnforcer, TokenBucket } from '../../src/admission/plugins/event-rate-limit/limiter';
import { loadConfig } from '../../src/config/versioned-config';

/** A clock the test moves by hand. */
function manualClock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

const ctx = (user = 'alice'): RequestContext => ({ namespace: 'ns', warnings: [], dryRun: false, now: () => new Date(), user: { name: user, uid: '', groups: [] } });

const event = (extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'ns' },
  involvedObject: { kind: 'Pod', namespace: 'ns', name: 'web-0', uid: 'u1', apiVersion: 'v1' },
  source: { component: 'kubelet', host: 'node-1' },
  ...extra,
});

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'events',
  subresource: '',
  kind: 'Event',
  namespace: 'ns',
  name: 'e',
  namespaced: true,
  object: event(),
  dryRun: false,
  ...over,
});

const limit = (type: string, qps: number, burst: number, cacheSize = 0): Limit => ({ type, qps, burst, cacheSize });
const config = (...limits: Limit[]): EventRateLimitConfiguration => ({ limits });

/** The Status a validate call refused with, or 'ok'. */
async function outcome(p: Promise<void>): Promise<unknown> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return e.status;
  }
}

describe('token bucket (x/time/rate with AllowN(now, 1))', () => {
  test('starts full: burst requests pass, then qps a second, unused allowance capped at burst', () => {
    const clock = manualClock();
    const b = new TokenBucket(3, 10, clock.now);
    expect(Array.from({ length: 11 }, () => b.tryAccept())).toEqual([...Array(10).fill(true), false]);
    clock.advance(1000);
    expect(Array.from({ length: 4 }, () => b.tryAccept())).toEqual([true, true, true, false]);
    // A third of a second earns one token at qps 3.
    clock.advance(334);
    expect([b.tryAccept(), b.tryAccept()]).toEqual([true, false]);
    // A long pause refills to burst, not beyond.
    clock.advance(60_000);
    expect(Array.from({ length: 11 }, () => b.tryAccept()).filter(Boolean)).toHaveLength(10);
  });

  test('a refused request takes nothing: the fraction earned so far still counts', () => {
    const clock = manualClock();
    const b = new TokenBucket(1, 1, clock.now);
    expect(b.tryAccept()).toBe(true);
    clock.advance(600);
    expect(b.tryAccept()).toBe(false);
    clock.advance(400);
    expect(b.tryAccept()).toBe(true);
  });
});

describe('limit types and their keys', () => {
  test('Server: one bucket for every event', async () => {
    const p = eventRateLimit(config(limit('Server', 1, 2)), manualClock().now);
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'a' })))).toBe('ok');
    expect(await outcome(p.validate!(ctx('bob'), attrs({ namespace: 'b' })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'c' })))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests: limit reached on type Server for key ',
      reason: 'TooManyRequests',
      code: 429,
    });
  });

  test('Namespace: one bucket per namespace', async () => {
    const p = eventRateLimit(config(limit('Namespace', 1, 1)), manualClock().now);
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'a' })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'b' })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'a' })))).toMatchObject({ message: 'Too many requests: limit reached on type Namespace for key a' });
  });

  test('User: one bucket per requesting user', async () => {
    const p = eventRateLimit(config(limit('User', 1, 1)), manualClock().now);
    expect(await outcome(p.validate!(ctx('alice'), attrs()))).toBe('ok');
    expect(await outcome(p.validate!(ctx('bob'), attrs()))).toBe('ok');
    expect(await outcome(p.validate!(ctx('alice'), attrs()))).toMatchObject({ message: 'Too many requests: limit reached on type User for key alice' });
  });

  test("SourceAndObject: kube's key, the source and involved object's fields joined with nothing between", async () => {
    const p = eventRateLimit(config(limit('SourceAndObject', 1, 1)), manualClock().now);
    expect(await outcome(p.validate!(ctx(), attrs()))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ object: event({ source: { component: 'other' } }) })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs()))).toMatchObject({
      message: 'Too many requests: limit reached on type SourceAndObject for key kubeletnode-1Podnsweb-0u1v1',
    });
  });

  test('several refusals are aggregated as kube does', async () => {
    const p = eventRateLimit(config(limit('Server', 1, 1), limit('Namespace', 1, 1)), manualClock().now);
    expect(await outcome(p.validate!(ctx(), attrs()))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs()))).toMatchObject({
      code: 429,
      message: 'Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key ns]',
    });
  });

  test('every limit takes its token, even when another refuses the request', async () => {
    const p = eventRateLimit(config(limit('Namespace', 1, 1), limit('User', 1, 2)), manualClock().now);
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'a' })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'a' })))).toMatchObject({ message: 'Too many requests: limit reached on type Namespace for key a' });
    // alice's second token went to the refused request.
    expect(await outcome(p.validate!(ctx(), attrs({ namespace: 'b' })))).toMatchObject({ message: 'Too many requests: limit reached on type User for key alice' });
  });

  test('only core Events, creates and updates, and no dry runs', async () => {
    const p = eventRateLimit(config(limit('Server', 1, 1)), manualClock().now);
    expect(await outcome(p.validate!(ctx(), attrs()))).toBe('ok');
    // events.k8s.io Events, other kinds and dry runs are not limited (and take no token).
    expect(await outcome(p.validate!(ctx(), attrs({ group: 'events.k8s.io' })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ kind: 'ConfigMap', resource: 'configmaps' })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ dryRun: true })))).toBe('ok');
    expect(await outcome(p.validate!(ctx(), attrs({ operation: 'UPDATE' })))).toMatchObject({ code: 429 });
    expect(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].map((o) => p.handles(o as AdmissionAttributes['operation']))).toEqual([true, true, false, false]);
  });
});

describe('bucket cache', () => {
  test('least recently used buckets are evicted past cacheSize, and come back full', () => {
    const clock = manualClock();
    const e = new LimitEnforcer(limit('Namespace', 1, 2, 2), clock.now);
    expect([e.accept('a'), e.accept('a'), e.accept('a')]).toEqual([undefined, undefined, 'limit reached on type Namespace for key a']);
    e.accept('b');
    // 'c' evicts 'a' (b was used after it).
    e.accept('c');
    expect(e.size).toBe(2);
    expect([e.accept('a'), e.accept('a'), e.accept('a')]).toEqual([undefined, undefined, 'limit reached on type Namespace for key a']);
  });

  test('a bucket kept in the cache keeps its state; an unset cacheSize is 4096', () => {
    const clock = manualClock();
    const e = new LimitEnforcer(limit('User', 1, 1), clock.now);
    expect(e.accept('u0')).toBeUndefined();
    for (let i = 1; i < DEFAULT_CACHE_SIZE; i++) e.accept(`u${i}`);
    expect(e.size).toBe(DEFAULT_CACHE_SIZE);
    // u0 is the oldest but still held: refused.
    expect(e.accept('u0')).toBe('limit reached on type User for key u0');
    e.accept('u-new');
    expect(e.size).toBe(DEFAULT_CACHE_SIZE);
    // u1 was the least recently used, so it went: full again.
    expect(e.accept('u1')).toBeUndefined();
  });

  test('the LRU: a hit becomes the most recently used, a set past max drops the least recently used', () => {
    const lru = new GrowingLru<string, number>(3);
    for (const k of ['a', 'b', 'c']) lru.set(k, k.charCodeAt(0));
    expect(lru.get('a')).toBe(97);
    lru.set('d', 100);
    expect([...lru.keys()]).toEqual(['c', 'a', 'd']);
    expect(lru.get('b')).toBeUndefined();
    // Setting a held key refreshes it without dropping anything.
    lru.set('c', 0);
    expect([...lru.keys()]).toEqual(['a', 'd', 'c']);
    expect(lru.size).toBe(3);
    expect(() => new GrowingLru(0)).toThrow('an LRU needs room for at least one entry, not 0');
  });

  test.each([100_000_000, 2_147_483_647])('cacheSize %d (kube takes any int32): nothing is allocated up front, buckets grow with use', (cacheSize) => {
    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const before = used();
    const plugin = eventRateLimit(config(limit('Namespace', 1, 1, cacheSize)), manualClock().now);
    const e = new LimitEnforcer(limit('User', 1, 1, cacheSize), manualClock().now);
    for (let i = 0; i < 1000; i++) expect(e.accept(`u${i}`)).toBeUndefined();
    expect(e.size).toBe(1000);
    expect(e.accept('u0')).toBe('limit reached on type User for key u0');
    expect(plugin.name).toBe('EventRateLimit');
    // lru-cache made for max 10^7 already takes ~280 MB; a thousand buckets take well under 32 MB.
    expect(used() - before).toBeLessThan(32 << 20);
  });

  test('a long key (client text) is held by its digest: its own bucket still, and the refusal names the whole key', () => {
    const e = new LimitEnforcer(limit('SourceAndObject', 1, 1), manualClock().now);
    const long = 'x'.repeat(100_000);
    const other = `${long}y`;
    expect(e.accept(long)).toBeUndefined();
    expect(e.accept(other)).toBeUndefined();
    expect(e.accept(long)).toBe(`limit reached on type SourceAndObject for key ${long}`);
    expect(e.size).toBe(2);
    const held = [...(e as unknown as { buckets: { keys(): Iterable<string> } }).buckets.keys()];
    expect(held.map((k) => k.length <= 64)).toEqual([true, true]);
  });
});

describe('configuration', () => {
  const text = (body: string) => ({ text: body, path: '/etc/erl.yaml' });

  test('YAML or JSON, kind Configuration of eventratelimit.admission.k8s.io/v1alpha1; cacheSize unset is 0; unknown fields ignored', () => {
    const c = loadConfig(
      text(`apiVersion: eventratelimit.admission.k8s.io/v1alpha1
kind: Configuration
limits:
- type: Namespace
  qps: 50
  burst: 100
  cacheSize: 2000
- type: User
  qps: 10
  burst: 50
  surprise: true
`),
      eventRateLimitConfigKind,
    );
    expect(c).toEqual({ limits: [limit('Namespace', 50, 100, 2000), limit('User', 10, 50, 0)] });
    const json = loadConfig(text('{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration","limits":[{"type":"Server","qps":1,"burst":2}]}'), eventRateLimitConfigKind);
    expect(json.limits).toEqual([limit('Server', 1, 2)]);
  });

  test("validation: kube's field paths and messages, every problem at once", () => {
    const load = (limits: string) => () => loadConfig(text(`{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration"${limits}}`), eventRateLimitConfigKind);
    expect(load('')).toThrow(/^limits: Invalid value: \[\]eventratelimit\.Limit\(nil\): must not be empty$/);
    expect(load(',"limits":[]')).toThrow(/^limits: Invalid value: \[\]eventratelimit\.Limit\{\}: must not be empty$/);
    expect(load(',"limits":[{"type":"Pod","qps":0,"burst":-1,"cacheSize":-5},{"type":"Server","qps":1,"burst":1,"cacheSize":-1}]')).toThrow(
      new Error(
        '[limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject", ' +
          'limits[0].burst: Invalid value: -1: must be positive, limits[0].qps: Invalid value: 0: must be positive, ' +
          'limits[0].cacheSize: Invalid value: -5: must not be negative]',
      ),
    );
  });

  test("decode errors are kube's", () => {
    expect(() => loadConfig(text('{"apiVersion":"eventratelimit.admission.k8s.io/v1","kind":"Configuration"}'), eventRateLimitConfigKind)).toThrow(
      new Error('no kind "Configuration" is registered for version "eventratelimit.admission.k8s.io/v1" in scheme "pkg/runtime/scheme.go:100"'),
    );
    expect(() =>
      loadConfig(text('{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration","limits":[{"type":"Server","qps":"1"}]}'), eventRateLimitConfigKind),
    ).toThrow(new Error('json: cannot unmarshal string into Go struct field Limit.limits.qps of type int32'));
  });

  test('no configuration is the empty one, which validation refuses (kube needs at least one limit)', () => {
    expect(() => loadEventRateLimitConfig(undefined)).toThrow(new Error('limits: Invalid value: []eventratelimit.Limit(nil): must not be empty'));
  });

  test("a refused configuration at startup: kube's message, then the file and AdmissionConfiguration entry it came from", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'papi-erl-unit-'));
    try {
      const admission = path.join(dir, 'admission.yaml');
      const entry = (limits: string) =>
        writeFileSync(admission, `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ResourceQuota\n- name: EventRateLimit\n  ${limits}\n`);
      // Only EventRateLimit: the default plugins need the server.
      const disable = [...kubeDefaultOnAdmissionPlugins];
      const apply = () => newAdmissionPlugins().apply({ enable: ['EventRateLimit'], disable, configFile: admission });
      entry('configuration: {apiVersion: eventratelimit.admission.k8s.io/v1alpha1, kind: Configuration, limits: [{type: Namespace, qps: 0, burst: 1}]}');
      expect(apply).toThrow(
        expect.objectContaining({
          message: `failed to apply admission: couldn't init admission plugin "EventRateLimit": limits[0].qps: Invalid value: 0: must be positive (in "${admission}" at plugins[1].configuration)`,
        }),
      );
      // kube's plugin decodes leniently: an unknown field inside is no error.
      entry('configuration: {apiVersion: eventratelimit.admission.k8s.io/v1alpha1, kind: Configuration, limits: [{type: Namespace, qps: 1, burst: 1, extra: 1}], more: {}}');
      expect(apply().validating).toEqual(['EventRateLimit']);
      // By path: the plugin's own file.
      const own = path.join(dir, 'erl.yaml');
      writeFileSync(own, 'apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: User\n  qps: "5"\n');
      entry('path: erl.yaml');
      expect(apply).toThrow(
        expect.objectContaining({
          message: `failed to apply admission: couldn't init admission plugin "EventRateLimit": json: cannot unmarshal string into Go struct field Limit.limits.qps of type int32 (in "${own}")`,
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the plugin: registered, off by default, refused at startup without a configuration', () => {
    const plugins = newAdmissionPlugins();
    expect(plugins.isRegistered('EventRateLimit')).toBe(true);
    expect(plugins.enabledPluginNames()).not.toContain('EventRateLimit');
    expect(() => plugins.newFromPlugins(['EventRateLimit'])).toThrow(
      expect.objectContaining({ message: 'couldn\'t init admission plugin "EventRateLimit": limits: Invalid value: []eventratelimit.Limit(nil): must not be empty' }),
    );
    const chain = plugins.newFromPlugins(['EventRateLimit'], {
      EventRateLimit: { text: JSON.stringify({ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Server', qps: 1, burst: 1 }] }) },
    });
    expect(chain.validating).toEqual(['EventRateLimit']);
  });
});
