/**
 * A JWT issuer for tests: HTTPS on 127.0.0.1 with its own generated CA, an OIDC discovery document
 * at `/.well-known/openid-configuration` (unless `wellKnown` is false) and at `/discovery` (for
 * `discoveryURL`), the JWKS at `/jwks`, tokens signed with jose, and any path a test adds with
 * `serve` (a distributed claims endpoint, say). Any other path is a 404.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { ensureServingCertificates } from '../../src/server/certs';

export interface TestIssuer {
  /** `https://127.0.0.1:<port>` (the issuer `url`). */
  url: string;
  /** PEM of the CA its serving certificate chains to (`certificateAuthority`). */
  ca: string;
  /** How many times each path was fetched. */
  hits: Map<string, number>;
  /** A token with `claims` (iss defaults to url, exp to +10 min), signed by the current key. */
  sign(claims: Record<string, unknown>, opts?: { key?: KeyLike; kid?: string; alg?: string }): Promise<string>;
  /** A key pair the issuer does not publish. */
  foreignKey(): Promise<KeyLike>;
  /** Publishes a new signing key (the old one stays in the set). */
  rotate(): Promise<void>;
  /** Answers requests for `path` (exact, query included) with `handler` from now on. */
  serve(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  stop(): Promise<void>;
}

export async function startTestIssuer(opts: { issuerPath?: string; discoveryIssuer?: string; wellKnown?: boolean } = {}): Promise<TestIssuer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'papi-issuer-'));
  const certs = await ensureServingCertificates({ certDir: dir, hosts: [] });
  const keys: Array<{ kid: string; priv: KeyLike; jwk: JWK }> = [];
  const addKey = async (): Promise<void> => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const kid = `k${keys.length + 1}`;
    keys.push({ kid, priv: privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } });
  };
  await addKey();
  const hits = new Map<string, number>();
  const handlers = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  let url = '';
  const server = https.createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const p = req.url ?? '';
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const json = (v: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    const base = url.slice(0, url.length - (opts.issuerPath ?? '').length);
    const handler = handlers.get(p);
    if (handler) handler(req, res);
    else if ((p.endsWith('/.well-known/openid-configuration') && opts.wellKnown !== false) || p === '/discovery') {
      json({ issuer: opts.discoveryIssuer ?? url, jwks_uri: `${base}/jwks`, id_token_signing_alg_values_supported: ['RS256'] });
    } else if (p === '/jwks') json({ keys: keys.map((k) => k.jwk) });
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${opts.issuerPath ?? ''}`;
  return {
    url,
    ca: certs.caCert,
    hits,
    sign: async (claims, o = {}) => {
      const k = keys[keys.length - 1]!;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: o.alg ?? 'RS256', kid: o.kid ?? k.kid, typ: 'JWT' })
        .sign(o.key ?? k.priv);
    },
    foreignKey: async () => (await generateKeyPair('RS256')).privateKey,
    rotate: addKey,
    serve: (p, handler) => void handlers.set(p, handler),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A PEM (an issuer's `ca`) as the block of `certificateAuthority: |` in a jwt item's `issuer:` of an AuthenticationConfiguration. */
export const caBlock = (pem: string): string => pem.trim().split('\n').map((l) => `      ${l}`).join('\n');

/**
 * An AuthenticationConfiguration (apiserver.config.k8s.io/v1beta1) with one jwt item for `issuer`:
 * its url, the `audiences` line (indented as an `issuer:` field) and its CA; `rest` follows the
 * issuer block (more issuer fields, then claimMappings, rules...).
 */
export const oneIssuerConfig = (issuer: Pick<TestIssuer, 'url' | 'ca'>, rest: string, audiences = 'audiences: [kubernetes]'): string => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer.url}
    ${audiences}
    certificateAuthority: |
${caBlock(issuer.ca)}
${rest}`;

/**
 * The rules and mappings of kube's documented AuthenticationConfiguration example, as the lines of
 * a jwt item after its `issuer:`: CEL claim validation rules (after `claimRules`, any rules to
 * check first), CEL mappings of username, groups, uid and an extra key, and user validation rules.
 */
export const documentedExample = (claimRules = ''): string => `  claimValidationRules:
${claimRules}  - expression: 'claims.hd == "example.com"'
    message: the hd claim must be set to example.com
  - expression: 'claims.exp - claims.nbf <= 86400'
    message: total token lifetime must not exceed 24 hours
  claimMappings:
    username:
      expression: 'claims.username + ":external-user"'
    groups:
      expression: 'claims.roles.split(",")'
    uid:
      expression: 'claims.sub'
    extra:
    - key: 'example.com/tenant'
      valueExpression: 'claims.tenant'
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: 'username cannot used reserved system: prefix'
  - expression: "user.groups.all(group, !group.startsWith('system:'))"
    message: 'groups cannot used reserved system: prefix'
`;
