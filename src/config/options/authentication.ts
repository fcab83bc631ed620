/**
 * kube's BuiltInAuthenticationOptions (kubernetes `pkg/kubeapiserver/options/authentication.go`):
 * how requests prove who they are. Printed under "Authentication flags:". Today the static token
 * file, `--anonymous-auth` and `--authentication-config` (JWT issuers; server/authentication-config.ts);
 * the client CA comes next.
 */
import { parseGoBool, type FlagSpec } from '../pflag';
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
        name: 'token-auth-file', typeName: 'string', defaultText: '',
        help: 'If set, the file that will be used to secure the secure port of the API server via token authentication (CSV: token,user,uid,"group1,group2").',
        set: (v) => { this.tokenAuthFile = v; },
      },
    ];
  }

  validate(): string[] {
    return [];
  }

  applyTo(config: Pick<ServerConfig, 'tokenAuthFile' | 'clientCaFile' | 'anonymousAuth' | 'authenticationConfig'>, ctx: ApplyContext): void {
    config.tokenAuthFile = ctx.optionalPath(this.tokenAuthFile);
    config.clientCaFile = ctx.optionalPath(this.clientCaFile);
    config.authenticationConfig = ctx.optionalPath(this.authenticationConfig);
    config.anonymousAuth = this.anonymousAuth;
  }
}
