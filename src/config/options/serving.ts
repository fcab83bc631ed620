/**
 * kube's SecureServingOptions (apiserver `pkg/server/options/serving.go`): the HTTPS listener, its
 * certificate and HTTP/2. Printed under "Secure serving flags:".
 */
import * as path from 'node:path';
import type { FlagSpec } from '../pflag';
import { parseGoBool, parseGoInt, parseIpValue } from '../pflag';
import type { ServerConfig } from '../server-config';
import type { ApplyContext, OptionsGroup } from './group';

type ServingConfig = Pick<
  ServerConfig,
  'bindAddress' | 'securePort' | 'certDir' | 'tlsCertFile' | 'tlsPrivateKeyFile' | 'http2MaxStreamsPerConnection' | 'disableHttp2Serving'
>;

export class SecureServingOptions implements OptionsGroup {
  readonly section = 'secure serving';
  bindAddress = '0.0.0.0';
  securePort = 6443;
  /** '' → `<data-dir>/pki`. */
  certDir = '';
  tlsCertFile = '';
  tlsPrivateKeyFile = '';
  /** kube-apiserver's default (apiserver `pkg/server/options/recommended.go`); 0 or less → Go's 100 when serving. */
  http2MaxStreamsPerConnection = 1000;
  disableHttp2Serving = false;

  flags(): FlagSpec[] {
    return [
      {
        name: 'bind-address', typeName: 'ip', defaultText: '0.0.0.0',
        help: 'The IP address on which to listen for the --secure-port port.',
        set: (v) => { this.bindAddress = parseIpValue(v); },
      },
      {
        name: 'cert-dir', typeName: 'string', defaultText: '',
        help: 'The directory where the generated serving CA and certificate are kept (default <data-dir>/pki). Ignored if --tls-cert-file and --tls-private-key-file are provided.',
        set: (v) => { this.certDir = v; },
      },
      {
        name: 'disable-http2-serving', typeName: '', defaultText: '', isBool: true,
        help: 'If true, HTTP2 serving will be disabled [default=false]',
        set: (v) => { this.disableHttp2Serving = parseGoBool(v); },
      },
      {
        name: 'http2-max-streams-per-connection', typeName: 'int', defaultText: '1000',
        help: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default.",
        set: (v) => { this.http2MaxStreamsPerConnection = parseGoInt(v, 0, 64); },
      },
      {
        name: 'secure-port', typeName: 'int', defaultText: '6443',
        help: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.',
        set: (v) => { this.securePort = parseGoInt(v, 0, 64); },
      },
      {
        name: 'tls-cert-file', typeName: 'string', defaultText: '',
        help: 'File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert). If not provided, a self-signed CA and serving certificate are generated in --cert-dir.',
        set: (v) => { this.tlsCertFile = v; },
      },
      {
        name: 'tls-private-key-file', typeName: 'string', defaultText: '',
        help: 'File containing the default x509 private key matching --tls-cert-file.',
        set: (v) => { this.tlsPrivateKeyFile = v; },
      },
    ];
  }

  validate(): string[] {
    const errs: string[] = [];
    // kube's wording, except that 0 is a free port here (kube: "0 for turning off secure port").
    if (this.securePort < 0 || this.securePort > 65535) {
      errs.push(`--secure-port ${this.securePort} must be between 0 and 65535, inclusive. 0 picks a free port`);
    }
    if ((this.tlsCertFile === '') !== (this.tlsPrivateKeyFile === '')) {
      errs.push('--tls-cert-file and --tls-private-key-file must be specified together');
    }
    return errs;
  }

  applyTo(config: ServingConfig, ctx: ApplyContext): void {
    config.bindAddress = this.bindAddress;
    config.securePort = this.securePort;
    config.certDir = this.certDir === '' ? path.join(ctx.dataDir, 'pki') : ctx.path(this.certDir);
    config.tlsCertFile = ctx.optionalPath(this.tlsCertFile);
    config.tlsPrivateKeyFile = ctx.optionalPath(this.tlsPrivateKeyFile);
    config.http2MaxStreamsPerConnection = this.http2MaxStreamsPerConnection;
    config.disableHttp2Serving = this.disableHttp2Serving;
  }
}
