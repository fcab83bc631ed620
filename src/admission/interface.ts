/** Admission: mutating and validating plugins run by the registry around every write. */
import type { KubeObject } from '../api';
import type { RequestContext } from '../api/request-context';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  kind: string;
  namespace: string;
  name: string;
  namespaced: boolean;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
}

/** A plugin mutates (admit) and/or validates; it throws ApiError to reject. */
export interface AdmissionPlugin {
  name: string;
  admit?(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void>;
  validate?(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void>;
}

/** Runs plugins in order: every admit, then (after the registry's own validation) every validate. */
export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

  async admit(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit) await p.admit(ctx, attrs);
  }

  async validate(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate) await p.validate(ctx, attrs);
  }
}
