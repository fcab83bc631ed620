/**
 * api/cel-lib-url.ts and api/go-net-url.ts: kube's URL CEL library (apiserver
 * pkg/cel/library/urls.go: its doc examples) over Go's url.Parse and url.ParseRequestURI.
 */
import { CelCompileError, compileCel } from '../../../src/api/cel';
import { escapedPath, GoUrlError, parseRequestURI, parseURL, query, urlString } from '../../../src/api/go-net-url';
import { overClaims } from '../../support/cel';

const { run, runError } = overClaims({ u: 'https://example.com/x?a=1' });

describe('url library (kube\'s examples)', () => {
  it.each<[string, unknown]>([
    ["isURL('https://user:pass@example.com:80/path?query=val#fragment')", true],
    ["isURL('/absolute-path')", true],
    ["isURL('https://a:b:c/')", false],
    ["isURL('../relative-path')", false],
    ["url('/path').getScheme()", ''],
    ["url('https://example.com/').getScheme()", 'https'],
    ["url('HTTPS://example.com/').getScheme()", 'https'],
    ["url('https://example.com:80/').getHost()", 'example.com:80'],
    ["url('https://example.com/').getHost()", 'example.com'],
    ["url('https://[::1]:80/').getHost()", '[::1]:80'],
    ["url('https://[::1]/').getHost()", '[::1]'],
    ["url('/path').getHost()", ''],
    ["url('https://example.com:80/').getHostname()", 'example.com'],
    ["url('https://127.0.0.1:80/').getHostname()", '127.0.0.1'],
    ["url('https://[::1]:80/').getHostname()", '::1'],
    ["url('/path').getHostname()", ''],
    ["url('https://example.com:80/').getPort()", '80'],
    ["url('https://example.com/').getPort()", ''],
    ["url('/path').getPort()", ''],
    ["url('https://example.com/path').getEscapedPath()", '/path'],
    ["url('https://example.com/path with spaces/').getEscapedPath()", '/path%20with%20spaces/'],
    ["url('https://example.com').getEscapedPath()", ''],
    ["url('https://example.com/a%2Fb').getEscapedPath()", '/a%2Fb'],
    ["url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", new Map([['k1', ['a']], ['k2', ['b', 'c']]])],
    ["url('https://example.com/path?key with spaces=value with spaces').getQuery()", new Map([['key with spaces', ['value with spaces']]])],
    ["url('https://example.com/path?').getQuery()", new Map()],
    ["url('https://example.com/path').getQuery()", new Map()],
    // Go's Query skips a pair with a semicolon or a bad escape, and unescapes `+`.
    ["url('https://example.com/?a=1;b=2&c=%zz&d=x+y%21').getQuery()", new Map([['d', ['x y!']]])],
    ["url('https://example.com/path?k=v').getQuery()['k'][0]", 'v'],
    ['url(claims.u).getQuery().a', ['1']],
    ["url('https://example.com/a') == url('https://example.com/a')", true],
    ["url('https://example.com/a') == url('https://example.com/b')", false],
    ["url('https://example.com/path with spaces') == url('https://example.com/path%20with%20spaces')", true],
  ])('%s', (expression, want) => {
    expect(run(expression)).toEqual(want);
  });

  it('a URL that is no absolute URI or path is kube\'s error, wrapping Go\'s', () => {
    expect(runError("url('https://a:b:c/')")).toBe('URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host');
    expect(runError("url('../relative-path')")).toBe('URL parse error during conversion from string: parse "../relative-path": invalid URI for request');
    expect(runError("url('')")).toBe('URL parse error during conversion from string: parse "": empty url');
    expect(runError("url('http://[::1/')")).toBe('URL parse error during conversion from string: parse "http://[::1/": missing \']\' in host');
    expect(runError("url('http://a b/')")).toBe('URL parse error during conversion from string: parse "http://a b/": invalid character " " in host name');
    expect(runError("url('http://x/%zz')")).toBe('URL parse error during conversion from string: parse "http://x/%zz": invalid URL escape "%zz"');
  });

  it('types are checked at compile time', () => {
    expect(() => compileCel('url(1)', 'claims')).toThrow(CelCompileError);
    expect(() => compileCel("url('/a').getHost(1)", 'claims')).toThrow("found no matching overload for 'getHost' applied to 'kubernetes.URL.(int)'");
    expect(compileCel("url('/a').getQuery()", 'claims').outputType).toBe('map(string, list(string))');
    expect(compileCel("url('/a')", 'claims').outputType).toBe('kubernetes.URL');
  });
});

describe("Go's net/url (go-net-url.ts)", () => {
  it('Parse keeps what ParseRequestURI refuses, and cuts the fragment', () => {
    expect(() => parseRequestURI('a/b')).toThrow(new GoUrlError('parse "a/b": invalid URI for request'));
    expect(parseURL('a/b').path).toBe('a/b');
    expect(() => parseURL('a:b/c:d')).not.toThrow();
    expect(() => parseURL('1a:b')).toThrow('parse "1a:b": first path segment in URL cannot contain colon');
    expect(() => parseURL(':x')).toThrow('parse ":x": missing protocol scheme');
    expect(() => parseURL('http://x/\u0001')).toThrow('parse "http://x/\\x01": net/url: invalid control character in URL');
    const u = parseURL('https://u%40:p@h/p#frag%20x');
    expect([u.user, u.host, u.path, u.fragment]).toEqual(['u%40:p', 'h', '/p', 'frag x']);
    expect(urlString(u)).toBe('https://u%40:p@h/p#frag%20x');
    expect(parseRequestURI('/p#x').path).toBe('/p#x');
    expect(parseURL('mailto:a@b').opaque).toBe('a@b');
  });

  it('EscapedPath keeps a valid escaping as written, else escapes the path', () => {
    expect(escapedPath(parseURL('/a%2fb'))).toBe('/a%2fb');
    expect(escapedPath(parseURL('/a b'))).toBe('/a%20b');
    expect(escapedPath(parseURL('/é'))).toBe('/%C3%A9');
    expect(escapedPath(parseURL('*'))).toBe('*');
  });

  it('Query: repeated keys in order, a key without `=` has an empty value', () => {
    expect(query(parseURL('/?a&a=2&=3'))).toEqual(new Map([['a', ['', '2']], ['', ['3']]]));
  });
});
