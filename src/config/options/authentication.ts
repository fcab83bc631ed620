/**
 * kube's BuiltInAuthenticationOptions (kubernetes `pkg/kubeapiserver/options/authentication.go`):
 * how requests prove who they are. Printed under "Authentication flags:": the static token file,
 * `--anonymous-auth`, `--authentication-config` (JWT issuers; server/authentication-config.ts), the
 * client CA, and the service-account token flags.
 */
import { parseDurationValue, parseGoBool, type FlagSpec } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { ApplyContext, OptionsGroup } from './group';

export class BuiltInAuthenticationOptions implements OptionsGroup {
  readonly section = 'authentication';
  tokenAuthFile = '';
  /** `--client-ca-file`: the CA bundle client certificates are verified against. */
  clientCaFile = '';
  /** `--authentication-config`: an AuthenticationConfiguration file (JWT authenticators, anonymous). */
  authenticationConfig = '';
  /**
   * `--anonymous-auth`: unset keeps this server's default (anonymous requests reach only the health
   * checks and /version), true lets every unauthenticated request in as system:anonymous for the
   * authorizer to judge, false lets none in. kube defaults to true, where RBAC guards the rest.
   */
  anonymousAuth: boolean | undefined = undefined;
  /** `--service-account-jwks-uri`: the discovery document's jwks_uri ('' = from the request's address). */
  serviceAccountJwksUri = '';
  /** `--service-account-issuer` (repeatable; the first signs). */
  serviceAccountIssuers: string[] = [];
  /** `--service-account-key-file` (repeatable). */
  serviceAccountKeyFiles: string[] = [];
  /** `--service-account-signing-key-file`. */
  serviceAccountSigningKeyFile = '';
  /** `--api-audiences`. */
  apiAudiences: string[] = [];
  /** `--service-account-max-token-expiration`, ms (0: none). */
  serviceAccountMaxTokenExpirationMs = 0;

  flags(): FlagSpec[] {
    return [
      {
        name: 'anonymous-auth', typeName: '', defaultText: '', isBool: true,
        help:
          'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated. ' +
          'If unset, only /healthz, /livez, /readyz and /version accept anonymous requests (no RBAC guards the rest yet); if false, none do.',
        set: (v) => { this.anonymousAuth = parseGoBool(v); },
      },
      {
        name: 'authentication-config', typeName: 'string', defaultText: '',
        help:
          'File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator. Requires the StructuredAuthenticationConfiguration feature gate. ' +
          'This flag is mutually exclusive with the --oidc-* flags if the file configures the JWT Token authenticator. ' +
          'This flag is mutually exclusive with --anonymous-auth if the file configures the Anonymous authenticator.',
        set: (v) => { this.authenticationConfig = v; },
      },
      {
        name: 'client-ca-file', typeName: 'string', defaultText: '',
        help:
          'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate. ' +
          'If unset, a client CA generated in --cert-dir is used, and an admin kubeconfig with a client certificate is written (--write-cert-kubeconfig).',
        set: (v) => { this.clientCaFile = v; },
      },
      {
        name: 'api-audiences', typeName: 'strings', defaultText: '',
        help:
          'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. ' +
          'If the --service-account-issuer flag is configured and this flag is not, this field defaults to a single element list containing the issuer URL.',
        set: (v) => { this.apiAudiences = [...this.apiAudiences, ...(v === '' ? [] : v.split(','))]; },
      },
      {
        name: 'service-account-issuer', typeName: 'stringArray', defaultText: '',
        help:
          'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. ' +
          'When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted. ' +
          'If unset, https://kubernetes.default.svc.cluster.local is used.',
        set: (v) => { this.serviceAccountIssuers.push(v); },
      },
      {
        name: 'service-account-jwks-uri', typeName: 'string', defaultText: '',
        help:
          'Overrides the URI of the JSON Web Key Set in the discovery document served at /.well-known/openid-configuration. ' +
          'Useful when relying parties fetch the discovery document and key set from another address than the one they reach this server at (by default the address of the request).',
        set: (v) => { this.serviceAccountJwksUri = v; },
      },
      {
        name: 'service-account-key-file', typeName: 'stringArray', defaultText: '',
        help:
          'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. ' +
          'The signing key is always trusted too.',
        set: (v) => { this.serviceAccountKeyFiles.push(v); },
      },
      {
        name: 'service-account-max-token-expiration', typeName: 'duration', defaultText: '',
        help: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.',
        set: (v) => { this.serviceAccountMaxTokenExpirationMs = parseDurationValue(v); },
      },
      {
        name: 'service-account-signing-key-file', typeName: 'string', defaultText: '',
        help:
          'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. ' +
          'If unset, a key generated in --cert-dir is used.',
        set: (v) => { this.serviceAccountSigningKeyFile = v; },
      },
      {
        name: 'token-auth-file', typeName: 'string', defaultText: '',
        help: 'If set, the file that will be used to secure the secure port of the API server via token authentication (CSV: token,user,uid,"group1,group2").',
        set: (v) => { this.tokenAuthFile = v; },
      },
    ];
  }

  /** kube's ServiceAccountAuthenticationOptions checks, in its words. */
  validate(): string[] {
    const errs: string[] = [];
    const seen = new Set<string>();
    for (const issuer of this.serviceAccountIssuers) {
      if (issuer.includes(':') && !URL.canParse(issuer)) {
        errs.push(`service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL`);
        continue;
      }
      if (issuer === '') {
        errs.push('service-account-issuer should not be an empty string');
        continue;
      }
      if (seen.has(issuer)) {
        errs.push(`service-account-issuer ${JSON.stringify(issuer)} is already specified`);
        continue;
      }
      seen.add(issuer);
    }
    // kube: validated when set; unset, it is derived from the server's address.
    if (this.serviceAccountJwksUri !== '') {
      if (!URL.canParse(this.serviceAccountJwksUri)) errs.push(`service-account-jwks-uri must be a valid URL: parse ${JSON.stringify(this.serviceAccountJwksUri)}: invalid URI`);
      else if (new URL(this.serviceAccountJwksUri).protocol !== 'https:') {
        errs.push(`service-account-jwks-uri requires https scheme, parsed as: ${this.serviceAccountJwksUri}`);
      }
    }
    const max = this.serviceAccountMaxTokenExpirationMs;
    if (max !== 0 && (max < 3_600_000 || max > 2 ** 32 * 1000)) {
      errs.push('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
    }
    return errs;
  }

  applyTo(
    config: Pick<
      ServerConfig,
      | 'tokenAuthFile' | 'clientCaFile' | 'anonymousAuth' | 'authenticationConfig' | 'serviceAccountIssuers' | 'serviceAccountKeyFiles'
      | 'serviceAccountSigningKeyFile' | 'apiAudiences' | 'serviceAccountMaxTokenExpirationSeconds' | 'serviceAccountJwksUri'
    >,
    ctx: ApplyContext,
  ): void {
    config.serviceAccountIssuers = [...this.serviceAccountIssuers];
    config.serviceAccountJwksUri = this.serviceAccountJwksUri || undefined;
    config.serviceAccountKeyFiles = this.serviceAccountKeyFiles.map((f) => ctx.path(f));
    config.serviceAccountSigningKeyFile = ctx.optionalPath(this.serviceAccountSigningKeyFile);
    config.apiAudiences = [...this.apiAudiences];
    config.serviceAccountMaxTokenExpirationSeconds = Math.floor(this.serviceAccountMaxTokenExpirationMs / 1000);
    config.tokenAuthFile = ctx.optionalPath(this.tokenAuthFile);
    config.clientCaFile = ctx.optionalPath(this.clientCaFile);
    config.authenticationConfig = ctx.optionalPath(this.authenticationConfig);
    config.anonymousAuth = this.anonymousAuth;
  }
}
