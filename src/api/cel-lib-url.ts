/**
 * kube's URL library (k8s.io/apiserver pkg/cel/library/urls.go, in kube's base environment from
 * the start): `url(string) kubernetes.URL`, `isURL(string) bool`, and the accessors
 * getScheme/getHost/getHostname/getPort/getEscapedPath (string) and getQuery
 * (`map(string, list(string))`), `==` comparing the URLs' text.
 *
 * As kube: a URL must pass Go's url.ParseRequestURI (an absolute URI or an absolute path), and
 * its parts are then read from url.Parse of the same text (api/go-net-url.ts); the error is
 * `URL parse error during conversion from string: parse "<url>": <reason>`. Costs are kube's:
 * url() a tenth of a unit per character, accessors and isURL one unit.
 */
import { chargeOperation, traversal } from './cel-cost';
import type { CelRegistrar } from './cel-registrar';
import { escapedPath, type GoURL, hostname, parseRequestURI, parseURL, port, query, urlString } from './go-net-url';

/** A `kubernetes.URL` value. */
export class CelURL {
  constructor(readonly url: GoURL) {}
}

function stringToURL(s: string): CelURL {
  try {
    parseRequestURI(s);
    return new CelURL(parseURL(s));
  } catch (e) {
    throw new Error(`URL parse error during conversion from string: ${(e as Error).message}`);
  }
}

/** Declares kube's URL library. */
export function registerURLLibrary(env: CelRegistrar): void {
  const URL = 'kubernetes.URL';
  env.registerType(URL, { ctor: CelURL, fields: {} });
  env.registerFunction(`url(string): ${URL}`, (s: string) => (chargeOperation(traversal(s.length)), stringToURL(s)));
  env.registerFunction('isURL(string): bool', (s: string) => {
    try {
      parseRequestURI(s);
      return true;
    } catch {
      return false;
    }
  });
  env.registerFunction(`${URL}.getScheme(): string`, (u: CelURL) => u.url.scheme);
  env.registerFunction(`${URL}.getHost(): string`, (u: CelURL) => u.url.host);
  env.registerFunction(`${URL}.getHostname(): string`, (u: CelURL) => hostname(u.url));
  env.registerFunction(`${URL}.getPort(): string`, (u: CelURL) => port(u.url));
  env.registerFunction(`${URL}.getEscapedPath(): string`, (u: CelURL) => escapedPath(u.url));
  env.registerFunction(`${URL}.getQuery(): map<string, list<string>>`, (u: CelURL) => query(u.url));
  env.registerOperator(`${URL} == ${URL}`, (a: CelURL, b: CelURL) => urlString(a.url) === urlString(b.url));
}
