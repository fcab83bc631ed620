import { GenericServerRunOptions } from '../../../../src/config/options';
import { applied, parsed, valueError } from './support';

describe('GenericServerRunOptions', () => {
  it('applies kube-apiserver defaults', () => {
    expect(applied(new GenericServerRunOptions())).toStrictEqual({
      requestTimeoutMs: 60_000,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      featureGates: new Map(),
    });
  });

  it('applies what was set', () => {
    const o = parsed(
      new GenericServerRunOptions(),
      '--request-timeout=1m30s', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0x10',
      '--feature-gates=A=true', '--feature-gates=B=false,A=false',
    );
    expect(o.validate()).toEqual([]);
    expect(applied(o)).toStrictEqual({
      requestTimeoutMs: 90_000,
      maxRequestsInflight: 0,
      maxMutatingRequestsInflight: 16,
      featureGates: new Map([
        ['A', false],
        ['B', false],
      ]),
    });
  });

  it('validates in kube order with kube wording', () => {
    const o = parsed(new GenericServerRunOptions(), '--request-timeout=-1s', '--max-mutating-requests-inflight=-1', '--max-requests-inflight=-2');
    expect(o.validate()).toEqual([
      '--max-requests-inflight can not be negative value',
      '--max-mutating-requests-inflight can not be negative value',
      '--request-timeout can not be negative value',
    ]);
    expect(parsed(new GenericServerRunOptions(), '--request-timeout=0').validate()).toEqual([]);
  });

  it('rejects a feature gate without a bool as component-base does', () => {
    expect(valueError(new GenericServerRunOptions(), '--feature-gates= A ')).toBe('invalid argument " A " for "--feature-gates" flag: missing bool value for A');
  });
});
