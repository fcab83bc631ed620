/** Typed API clients of @kubernetes/client-node on a test server. */
import type { TestServer } from './api-server';

import type * as K8sModule from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

type K8s = typeof K8sModule;

/**
 * The client `api` picks (`(k8s) => k8s.CoreV1Api`), with the server's kubeconfig. The module is
 * ESM only: it is imported here, when a test or hook calls this.
 */
export async function apiClient<T extends K8sModule.ApiType>(srv: TestServer, api: (k8s: K8s) => K8sModule.ApiConstructor<T>): Promise<T> {
  const k8s: K8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(srv.kubeconfig);
  return kc.makeApiClient(api(k8s));
}
