/**
 * kube's generic ServerRunOptions (apiserver `pkg/server/options/server_run_options.go`,
 * AddUniversalFlags): request limits and deadlines, and the feature gates (kube registers
 * `--feature-gates` here too, through its component registry). Printed under "Generic flags:".
 */
import type { FlagSpec } from '../pflag';
import { FlagValueError, parseDurationValue, parseGoBool, parseGoInt } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { OptionsGroup } from './group';

type GenericConfig = Pick<ServerConfig, 'requestTimeoutMs' | 'maxRequestsInflight' | 'maxMutatingRequestsInflight' | 'featureGates'>;

/** k8s.io/component-base featuregate Set: `A=true,B=false`; empty items skipped; keys and values trimmed. */
function parseFeatureGates(value: string, into: Map<string, boolean>): void {
  const parsed = new Map<string, boolean>();
  for (const item of value.split(',')) {
    if (item.length === 0) continue;
    const eq = item.indexOf('=');
    const k = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0) throw new FlagValueError(`missing bool value for ${k}`);
    const v = item.slice(eq + 1).trim();
    let b: boolean;
    try {
      b = parseGoBool(v);
    } catch (e) {
      throw new FlagValueError(`invalid value of ${k}=${v}, err: ${(e as Error).message}`);
    }
    parsed.set(k, b);
  }
  for (const [k, v] of parsed) into.set(k, v);
}

export class GenericServerRunOptions implements OptionsGroup {
  readonly section = 'generic';
  /** kube's RequestTimeout default, 1m0s. */
  requestTimeoutMs = 60_000;
  maxRequestsInflight = 400;
  maxMutatingRequestsInflight = 200;
  /** As given; gate names and locked values are checked at startup (FeatureGates.fromFlags). */
  readonly featureGates = new Map<string, boolean>();

  flags(): FlagSpec[] {
    return [
      {
        name: 'feature-gates', typeName: 'mapStringBool', defaultText: '',
        help: 'A set of key=value pairs that describe feature gates for alpha/experimental features.',
        set: (v) => parseFeatureGates(v, this.featureGates),
      },
      {
        name: 'max-mutating-requests-inflight', typeName: 'int', defaultText: '200',
        help: 'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
        set: (v) => { this.maxMutatingRequestsInflight = parseGoInt(v, 0, 64); },
      },
      {
        name: 'max-requests-inflight', typeName: 'int', defaultText: '400',
        help: 'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
        set: (v) => { this.maxRequestsInflight = parseGoInt(v, 0, 64); },
      },
      {
        name: 'request-timeout', typeName: 'duration', defaultText: '1m0s',
        help: 'The duration a handler must keep a request open before timing it out (not for long-running requests such as watch).',
        set: (v) => { this.requestTimeoutMs = parseDurationValue(v); },
      },
    ];
  }

  validate(): string[] {
    const errs: string[] = [];
    if (this.maxRequestsInflight < 0) errs.push('--max-requests-inflight can not be negative value');
    if (this.maxMutatingRequestsInflight < 0) errs.push('--max-mutating-requests-inflight can not be negative value');
    if (this.requestTimeoutMs < 0) errs.push('--request-timeout can not be negative value');
    return errs;
  }

  applyTo(config: GenericConfig): void {
    config.requestTimeoutMs = this.requestTimeoutMs;
    config.maxRequestsInflight = this.maxRequestsInflight;
    config.maxMutatingRequestsInflight = this.maxMutatingRequestsInflight;
    config.featureGates = this.featureGates;
  }
}
