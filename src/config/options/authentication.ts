/**
 * kube's BuiltInAuthenticationOptions (kubernetes `pkg/kubeapiserver/options/authentication.go`):
 * how requests prove who they are. Printed under "Authentication flags:". Today the static token
 * file; the client CA, `--authentication-config` and `--anonymous-auth` come next.
 */
import type { FlagSpec } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { ApplyContext, OptionsGroup } from './group';

export class BuiltInAuthenticationOptions implements OptionsGroup {
  readonly section = 'authentication';
  tokenAuthFile = '';

  flags(): FlagSpec[] {
    return [
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

  applyTo(config: Pick<ServerConfig, 'tokenAuthFile'>, ctx: ApplyContext): void {
    config.tokenAuthFile = ctx.optionalPath(this.tokenAuthFile);
  }
}
