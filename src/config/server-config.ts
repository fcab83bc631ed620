/**
 * The resolved server settings: what parseFlags returns and main.ts wires up. Each options group
 * (options/) fills its own fields in its applyTo.
 */

/** Every server setting, defaults applied and paths absolute. */
export interface ServerConfig {
  /** `--help`/`-h` was given: print help() and exit 0; other fields hold defaults and are not validated. */
  help: boolean;
  /** `--etcd-servers`; empty → start an embedded etcd under dataDir. */
  etcdServers: string[];
  /** `--etcd-prefix`, trailing slashes removed (default `/registry`). */
  etcdPrefix: string;
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** `--etcd-compaction-interval` in ms (default 5m); 0 disables compaction. */
  etcdCompactionIntervalMs: number;
  /** `--etcd-healthcheck-timeout` in ms (0, the default, means 2 s): the /livez and /healthz `etcd` check. */
  etcdHealthcheckTimeoutMs: number;
  /** `--etcd-readycheck-timeout` in ms (0, the default, means 2 s): the /readyz `etcd-readiness` check. */
  etcdReadycheckTimeoutMs: number;
  /** `--event-ttl` in whole seconds (default 1h): how long an event lives after its last write. */
  eventTtlSeconds: number;
  /** `--data-dir` (default `./.data`): embedded etcd data, certs, kubeconfig, generated tokens. */
  dataDir: string;
  /** `--bind-address` (default `0.0.0.0`). */
  bindAddress: string;
  /** `--secure-port` (default 6443); 0 picks a free port. */
  securePort: number;
  /** `--cert-dir` (default `<dataDir>/pki`). */
  certDir: string;
  /** `--tls-cert-file` / `--tls-private-key-file`: both or neither. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** `--write-kubeconfig` (default `<dataDir>/admin.kubeconfig`); undefined when given as empty (write none). */
  writeKubeconfig?: string;
  /** `--token-auth-file`: kube's static token CSV. */
  tokenAuthFile?: string;
  /** `--client-ca-file` (absolute path); unset: a client CA generated in certDir. */
  clientCaFile?: string;
  /** `--write-cert-kubeconfig`: where to write the admin kubeconfig with a client certificate; undefined: none. */
  writeCertKubeconfig?: string;
  /**
   * `--write-kubeconfig-exec-service-account=NAMESPACE/NAME`: the kubeconfig of --write-kubeconfig
   * also gets a user (and context) whose token the `credential` exec plugin requests for this account.
   */
  writeKubeconfigExecServiceAccount?: { namespace: string; name: string };
  /**
   * `--anonymous-auth`: undefined when not given (anonymous requests reach only the health checks
   * and /version), true (every path, for the authorizer to judge) or false (none).
   */
  anonymousAuth?: boolean;
  /** `--authentication-config`: an AuthenticationConfiguration file (absolute path). */
  authenticationConfig?: string;
  /** `--service-account-issuer` values; the first signs. Empty: this server's default issuer. */
  /** `--service-account-jwks-uri`: the jwks_uri issuer discovery serves (unset: from the request's address). */
  serviceAccountJwksUri?: string;
  serviceAccountIssuers: string[];
  /** `--service-account-key-file` paths (absolute): keys service-account tokens are verified with. */
  serviceAccountKeyFiles: string[];
  /** `--service-account-signing-key-file` (absolute); unset: a key generated in certDir. */
  serviceAccountSigningKeyFile?: string;
  /** `--api-audiences`; empty: the issuers. */
  apiAudiences: string[];
  /** `--service-account-max-token-expiration`, seconds (0: no cap). */
  serviceAccountMaxTokenExpirationSeconds: number;
  /**
   * `--authorization-mode`, in order (AlwaysAllow, AlwaysDeny, RBAC, Webhook). When neither it nor
   * `--authorization-config` is given this is OUR default, `['RBAC']` (kube-apiserver's is
   * AlwaysAllow), so a server started with no flags (`make run`) runs RBAC with the admin in
   * system:masters. Empty when `--authorization-config` is given.
   */
  authorizationModes: string[];
  /** `--authorization-config`: an AuthorizationConfiguration file (absolute path); excludes the mode and webhook flags. */
  authorizationConfig?: string;
  /** `--authorization-webhook-config-file`: the kubeconfig of mode Webhook's server (absolute path). */
  authorizationWebhookConfigFile?: string;
  /** `--enable-admission-plugins`: plugins on beyond kube's defaults (names as given). */
  enableAdmissionPlugins: string[];
  /** `--disable-admission-plugins`: default plugins turned off. */
  disableAdmissionPlugins: string[];
  /** `--admission-control-config-file`: an AdmissionConfiguration (absolute path). */
  admissionControlConfigFile?: string;
  /** `--default-not-ready-toleration-seconds` (default 300): the DefaultTolerationSeconds plugin's not-ready toleration. */
  defaultNotReadyTolerationSeconds: number;
  /** `--default-unreachable-toleration-seconds` (default 300): its unreachable toleration. */
  defaultUnreachableTolerationSeconds: number;
  /** `--authorization-webhook-version`: the SubjectAccessReview version mode Webhook sends (default v1beta1). */
  authorizationWebhookVersion: string;
  /** `--authorization-webhook-cache-authorized-ttl` in ms (default 5m; 0: no caching). */
  authorizationWebhookCacheAuthorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` in ms (default 30s; 0: no caching). */
  authorizationWebhookCacheUnauthorizedTtlMs: number;
  /** `--feature-gates`, parsed (gate names are validated elsewhere). */
  featureGates: Map<string, boolean>;
  /** `--runtime-config`, parsed (`key=value`; a bare key maps to ''). */
  runtimeConfig: Map<string, string>;
  /** `--watch-cache` (default true). */
  watchCache: boolean;
  /**
   * `--request-timeout` in ms (default 1m0s): the deadline of every request that is not long-running,
   * and so (main.ts) the bound on reading a request's body.
   */
  requestTimeoutMs: number;
  /** `--max-requests-inflight` (default 400; 0 = no limit). */
  maxRequestsInflight: number;
  /** `--max-mutating-requests-inflight` (default 200; 0 = no limit). */
  maxMutatingRequestsInflight: number;
  /** `-v`/`--v` log verbosity (default 0). */
  verbosity: number;
  /** `--http2-max-streams-per-connection` (default 1000, kube-apiserver's; 0 or less = kube's fallback, 100). */
  http2MaxStreamsPerConnection: number;
  /** `--disable-http2-serving` (default false): ALPN offers http/1.1 only. */
  disableHttp2Serving: boolean;
}
