/**
 * Static bearer tokens: kube's --token-auth-file CSV (k8s.io/apiserver/pkg/authentication/token/tokenfile),
 * a static in-memory token map, and the bearer-token request authenticator that fronts them
 * (k8s.io/apiserver/pkg/authentication/request/bearertoken).
 */
import { promises as fs } from 'node:fs';
import { errors, goPathError } from '../../api';
import { firstTokenSource } from './token-cache';
import { addAuthenticatedGroup, AuthRequest, Authenticator, TokenAuthenticator, UserInfo } from './types';

/** A token file that cannot be read or parsed; the message mirrors kube's (and Go's) wording. */
export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

/** Options of parseTokenFile / TokenFileAuthenticator.load. */
export interface TokenFileOptions {
  /** Receives kube's load-time warnings (empty or duplicate tokens). */
  onWarning?: (message: string) => void;
}

// ---------------------------------------------------------------------------------------------
// Go encoding/csv (defaults: comma ',', no comment character, strict quotes, any field count)
// ---------------------------------------------------------------------------------------------

const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
const ERR_QUOTE = 'extraneous or missing " in quoted-field';

function csvError(startLine: number, line: number, column: number, err: string): TokenFileError {
  const where =
    startLine !== line
      ? `record on line ${startLine}; parse error on line ${line}, column ${column}`
      : `parse error on line ${line}, column ${column}`;
  return new TokenFileError(`${where}: ${err}`);
}

const byteLen = (s: string): number => Buffer.byteLength(s, 'utf8');
const lengthNL = (s: string): number => (s.endsWith('\n') ? 1 : 0);

/** Go's csv line reader: lines keep their '\n'; "\r\n" becomes "\n"; a '\r' right before EOF is dropped. */
function splitLines(content: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < content.length) {
    const nl = content.indexOf('\n', start);
    let line = nl < 0 ? content.slice(start) : content.slice(start, nl + 1);
    start = nl < 0 ? content.length : nl + 1;
    if (nl < 0 && line.endsWith('\r')) line = line.slice(0, -1);
    if (line.endsWith('\r\n')) line = line.slice(0, -2) + '\n';
    lines.push(line);
  }
  return lines;
}

/**
 * Reads CSV records as Go's encoding/csv Reader does with kube's settings: empty lines skipped, no
 * comments, quoted fields may span lines, `""` escapes a quote, and a stray quote is an error with Go's
 * ParseError text (`parse error on line 2, column 5: bare " in non-quoted-field`; columns are 1-based
 * bytes). Returns each record with the line it started on. Throws TokenFileError.
 */
export function readGoCsv(content: string): Array<{ line: number; fields: string[] }> {
  const lines = splitLines(content);
  const records: Array<{ line: number; fields: string[] }> = [];
  let numLine = 0;
  const readLine = (): string | undefined => {
    const l = lines[numLine];
    numLine++;
    return l;
  };
  for (;;) {
    let line: string | undefined;
    do line = readLine();
    while (line !== undefined && line.length === lengthNL(line));
    if (line === undefined) return records;
    const recLine = numLine;
    const fields: string[] = [];
    let posLine = numLine;
    let posCol = 1;
    parseField: for (;;) {
      if (!line.startsWith('"')) {
        const i = line.indexOf(',');
        const field = i >= 0 ? line.slice(0, i) : line.slice(0, line.length - lengthNL(line));
        const q = field.indexOf('"');
        if (q >= 0) throw csvError(recLine, numLine, posCol + byteLen(field.slice(0, q)), ERR_BARE_QUOTE);
        fields.push(field);
        if (i < 0) break;
        line = line.slice(i + 1);
        posCol += byteLen(field) + 1;
        continue;
      }
      // Quoted field.
      let buf = '';
      line = line.slice(1);
      posCol += 1;
      for (;;) {
        const i = line.indexOf('"');
        if (i >= 0) {
          buf += line.slice(0, i);
          posCol += byteLen(line.slice(0, i)) + 1;
          line = line.slice(i + 1);
          if (line.startsWith('"')) {
            buf += '"';
            line = line.slice(1);
            posCol += 1;
          } else if (line.startsWith(',')) {
            line = line.slice(1);
            posCol += 1;
            fields.push(buf);
            continue parseField;
          } else if (line.length === lengthNL(line)) {
            fields.push(buf);
            break parseField;
          } else {
            throw csvError(recLine, numLine, posCol - 1, ERR_QUOTE);
          }
        } else if (line.length > 0) {
          buf += line;
          posCol += byteLen(line);
          const next = readLine();
          line = next ?? '';
          if (line.length > 0) {
            posLine++;
            posCol = 1;
          }
        } else {
          // Abrupt end of file inside quotes.
          throw csvError(recLine, posLine, posCol, ERR_QUOTE);
        }
      }
    }
    records.push({ line: recLine, fields });
  }
}

// ---------------------------------------------------------------------------------------------
// Token file
// ---------------------------------------------------------------------------------------------

/**
 * Parses kube's static token CSV: `token,user,uid[,"group1,group2"]`, extra columns ignored. As kube's
 * tokenfile.NewCSV: a record with fewer than 3 columns fails the whole file; '#' lines are not comments;
 * an empty token is skipped with a warning; a duplicate token warns and the later record wins; the 4th
 * column is split on ',' as is (so an empty one yields the group ""). Throws TokenFileError.
 */
export function parseTokenFile(content: string, path: string, opts: TokenFileOptions = {}): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  let recordNum = 0;
  for (const { fields } of readGoCsv(content)) {
    if (fields.length < 3) {
      throw new TokenFileError(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    }
    recordNum++;
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') {
      opts.onWarning?.(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token)) {
      opts.onWarning?.(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    }
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',') });
  }
  return tokens;
}

/** Go's os.Open error text for a Node fs error (`open /x: no such file or directory`). */
/**
 * Extracts the bearer token as kube's bearertoken authenticator does: the Authorization header trimmed,
 * split on single spaces; the scheme compared case-insensitively with "bearer"; the second part is the
 * token. Undefined when absent, another scheme, or empty ("Bearer " / "Bearer  x").
 */
export function bearerToken(req: AuthRequest): string | undefined {
  let raw = req.headers.authorization;
  if (raw === undefined) {
    const key = Object.keys(req.headers).find((k) => k.toLowerCase() === 'authorization');
    raw = key === undefined ? undefined : req.headers[key];
  }
  const header = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
  if (header === '') return undefined;
  const parts = header.split(' ');
  if (parts.length < 2 || (parts[0] as string).toLowerCase() !== 'bearer') return undefined;
  const token = parts[1] as string;
  return token === '' ? undefined : token;
}

/** A token authenticator that can also authenticate a request on its own (no opinion on unknown tokens). */
export interface StandaloneTokenAuthenticator extends TokenAuthenticator, Authenticator {}

function standalone(lookup: (token: string) => UserInfo | undefined): StandaloneTokenAuthenticator {
  const authenticateToken = async (token: string): Promise<UserInfo | null> => {
    const user = lookup(token);
    return user ? { ...user, groups: [...user.groups] } : null;
  };
  return {
    authenticateToken,
    authenticate: async (req) => {
      const token = bearerToken(req);
      const user = token === undefined ? null : await authenticateToken(token);
      return user ? addAuthenticatedGroup(user) : null;
    },
  };
}

/**
 * Tokens from kube's --token-auth-file. `authenticateToken` returns the file's user (no added groups);
 * `authenticate(req)` reads a bearer token and returns the user with system:authenticated, or null for
 * no/unknown token — combine several sources with bearerTokenAuthenticator to get kube's 401.
 */
export class TokenFileAuthenticator implements StandaloneTokenAuthenticator {
  private readonly inner: StandaloneTokenAuthenticator;

  constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {
    this.inner = standalone((t) => this.tokens.get(t));
  }

  /** Reads and parses a token file (see parseTokenFile). Throws TokenFileError. */
  static async load(path: string, opts: TokenFileOptions = {}): Promise<TokenFileAuthenticator> {
    let content: string;
    try {
      content = await fs.readFile(path, 'utf8');
    } catch (e) {
      throw new TokenFileError(goPathError('open', path, e));
    }
    return new TokenFileAuthenticator(parseTokenFile(content, path, opts));
  }

  /** Number of tokens loaded. */
  get size(): number {
    return this.tokens.size;
  }

  authenticateToken(token: string): Promise<UserInfo | null> {
    return this.inner.authenticateToken(token);
  }

  authenticate(req: AuthRequest): Promise<UserInfo | null> {
    return this.inner.authenticate(req);
  }
}

/**
 * In-memory tokens (kube's tokenfile.New), e.g. the generated admin token → user `admin`, groups
 * `system:masters`. Same contract as TokenFileAuthenticator. The map is copied.
 */
export function staticTokenAuthenticator(tokens: ReadonlyMap<string, UserInfo>): StandaloneTokenAuthenticator {
  const copy = new Map(tokens);
  return standalone((t) => copy.get(t));
}

/**
 * kube's bearer-token request authenticator over a union of token authenticators: null when the request
 * carries no bearer token; the first source's user (plus system:authenticated) when one recognises it;
 * otherwise rejects with 401 Unauthorized (kube's "invalid bearer token", which fails the request even
 * when anonymous auth is on).
 */
export function bearerTokenAuthenticator(sources: readonly TokenAuthenticator[]): Authenticator {
  const tokens = sources.length === 1 ? (sources[0] as TokenAuthenticator) : firstTokenSource(sources);
  return {
    authenticate: async (req) => {
      const token = bearerToken(req);
      if (token === undefined) return null;
      const user = await tokens.authenticateToken(token, req.audiences);
      if (user) return addAuthenticatedGroup(user);
      throw errors.unauthorized();
    },
  };
}
