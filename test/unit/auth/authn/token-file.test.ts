import { ApiError } from '../../../../src/api';
import {
  addAuthenticatedGroup,
  bearerToken,
  bearerTokenAuthenticator,
  parseTokenFile,
  readGoCsv,
  staticTokenAuthenticator,
  TokenFileAuthenticator,
  TokenFileError,
  UserInfo,
  withAuthenticatedGroup,
} from '../../../../src/auth';

const P = '/etc/tokens.csv';

describe('readGoCsv (Go encoding/csv semantics)', () => {
  it.each([
    ['a,b,c\n', [['a', 'b', 'c']]],
    ['a,b,c', [['a', 'b', 'c']]],
    ['a,b,c\r\nd,e,f\r\n', [['a', 'b', 'c'], ['d', 'e', 'f']]],
    ['a,b\r', [['a', 'b']]],
    ['\n\na,b\n\n\nc\n', [['a', 'b'], ['c']]],
    [' a , b ', [[' a ', ' b ']]],
    ['"a,b",c', [['a,b', 'c']]],
    ['"say ""hi""",x', [['say "hi"', 'x']]],
    ['"",,', [['', '', '']]],
    ['"multi\nline",x\nnext', [['multi\nline', 'x'], ['next']]],
    ['"multi\r\nline",x', [['multi\nline', 'x']]],
    ['# not a comment,b,c', [['# not a comment', 'b', 'c']]],
    ['   \n', [['   ']]],
  ])('%j', (input, records) => {
    expect(readGoCsv(input).map((r) => r.fields)).toEqual(records);
  });

  it('reports the line each record starts on', () => {
    expect(readGoCsv('\na\n"b\nc"\nd').map((r) => r.line)).toEqual([2, 3, 5]);
  });

  it.each([
    ['a"b,c', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    ['x,y\nab,c"d', 'parse error on line 2, column 5: bare " in non-quoted-field'],
    [' "a",b', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    ['é"', 'parse error on line 1, column 3: bare " in non-quoted-field'],
    ['"a"b,c', 'parse error on line 1, column 3: extraneous or missing " in quoted-field'],
    ['x,"abc"d', 'parse error on line 1, column 7: extraneous or missing " in quoted-field'],
    ['"abc', 'parse error on line 1, column 5: extraneous or missing " in quoted-field'],
    ['a\n"b\nc', 'record on line 2; parse error on line 3, column 2: extraneous or missing " in quoted-field'],
    ['"a\nb"c', 'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field'],
  ])('%j fails: %s', (input, message) => {
    expect(() => readGoCsv(input)).toThrow(new TokenFileError(message));
  });
});

describe('parseTokenFile (kube tokenfile.NewCSV)', () => {
  it('reads token,user,uid and the optional quoted groups column', () => {
    const tokens = parseTokenFile(
      'tok1,alice,uid-1\ntok2,bob,uid-2,"dev,ops"\ntok3,carol,uid-3,solo,ignored-extra\n',
      P,
    );
    expect([...tokens]).toEqual([
      ['tok1', { name: 'alice', uid: 'uid-1', groups: [] }],
      ['tok2', { name: 'bob', uid: 'uid-2', groups: ['dev', 'ops'] }],
      ['tok3', { name: 'carol', uid: 'uid-3', groups: ['solo'] }],
    ]);
  });

  it('splits an empty groups column into one empty group, as strings.Split does', () => {
    expect(parseTokenFile('t,u,1,', P).get('t')?.groups).toEqual(['']);
  });

  it('allows empty user names and uids', () => {
    expect(parseTokenFile('t,,', P).get('t')).toEqual({ name: '', uid: '', groups: [] });
  });

  it.each([
    ['tok,user\n', 2],
    ['tok\n', 1],
    ['tok1,a,1\n# a comment\n', 1],
    ['tok1,a,1\n \n', 1],
  ])('fails the whole file on a record with too few columns: %j', (content, found) => {
    expect(() => parseTokenFile(content, P)).toThrow(
      new TokenFileError(`token file '${P}' must have at least 3 columns (token, user name, user uid), found ${found}`),
    );
  });

  it('fails on CSV syntax errors', () => {
    expect(() => parseTokenFile('tok,us"er,1\n', P)).toThrow('parse error on line 1, column 7: bare " in non-quoted-field');
  });

  it('skips empty tokens and keeps the last duplicate, warning with kube record numbers', () => {
    const warnings: string[] = [];
    const tokens = parseTokenFile('a,first,1\n,nobody,2\n\na,second,3\n', P, { onWarning: (w) => warnings.push(w) });
    expect([...tokens]).toEqual([['a', { name: 'second', uid: '3', groups: [] }]]);
    expect(warnings).toEqual([
      `empty token has been found in token file '${P}', record number '2'`,
      `duplicate token has been found in token file '${P}', record number '3'`,
    ]);
  });

  it('accepts an empty file', () => {
    expect(parseTokenFile('', P).size).toBe(0);
  });
});

describe('bearerToken (kube bearertoken authenticator)', () => {
  it.each([
    [{ authorization: 'Bearer abc' }, 'abc'],
    [{ authorization: 'bearer abc' }, 'abc'],
    [{ authorization: 'BEARER abc' }, 'abc'],
    [{ authorization: '  Bearer abc  ' }, 'abc'],
    [{ authorization: 'Bearer abc trailing' }, 'abc'],
    [{ Authorization: 'Bearer abc' }, 'abc'],
    [{ authorization: ['Bearer first', 'Bearer second'] }, 'first'],
    [{ authorization: 'Bearer' }, undefined],
    [{ authorization: 'Bearer ' }, undefined],
    [{ authorization: 'Bearer  abc' }, undefined],
    [{ authorization: 'Basic YWxpY2U6cHc=' }, undefined],
    [{ authorization: '' }, undefined],
    [{}, undefined],
  ])('%j → %s', (headers, token) => {
    expect(bearerToken({ headers })).toBe(token);
  });
});

describe('addAuthenticatedGroup / withAuthenticatedGroup (kube AuthenticatedGroupAdder)', () => {
  const u = (name: string, groups: string[]): UserInfo => ({ name, uid: '', groups });
  it.each([
    [u('alice', []), ['system:authenticated']],
    [u('alice', ['dev']), ['dev', 'system:authenticated']],
    [u('alice', ['system:authenticated', 'dev']), ['system:authenticated', 'dev']],
    [u('alice', ['system:unauthenticated']), ['system:unauthenticated']],
    [u('system:anonymous', ['system:unauthenticated']), ['system:unauthenticated']],
  ])('%j', (user, groups) => {
    expect(addAuthenticatedGroup(user).groups).toEqual(groups);
  });

  it('does not mutate its input and keeps uid and extra', () => {
    const user: UserInfo = { name: 'a', uid: '7', groups: ['g'], extra: { k: ['v'] } };
    expect(addAuthenticatedGroup(user)).toEqual({ name: 'a', uid: '7', groups: ['g', 'system:authenticated'], extra: { k: ['v'] } });
    expect(user.groups).toEqual(['g']);
  });

  it('wraps an authenticator', async () => {
    const inner = { authenticate: async () => u('bob', ['x']) };
    await expect(withAuthenticatedGroup(inner).authenticate({ headers: {} })).resolves.toEqual(u('bob', ['x', 'system:authenticated']));
    const none = { authenticate: async () => null };
    await expect(withAuthenticatedGroup(none).authenticate({ headers: {} })).resolves.toBeNull();
  });
});

describe('token authenticators', () => {
  const file = new TokenFileAuthenticator(parseTokenFile('filetok,alice,uid-a,"dev,ops"\n', P));
  const admin = staticTokenAuthenticator(new Map([['admintok', { name: 'admin', uid: '', groups: ['system:masters'] }]]));
  const req = (authorization?: string) => ({ headers: { authorization } });

  it('TokenFileAuthenticator maps tokens to the file user, and requests to the user plus system:authenticated', async () => {
    expect(file.size).toBe(1);
    await expect(file.authenticateToken('filetok')).resolves.toEqual({ name: 'alice', uid: 'uid-a', groups: ['dev', 'ops'] });
    await expect(file.authenticateToken('nope')).resolves.toBeNull();
    await expect(file.authenticate(req('Bearer filetok'))).resolves.toEqual({
      name: 'alice',
      uid: 'uid-a',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
    await expect(file.authenticate(req('Bearer nope'))).resolves.toBeNull();
    await expect(file.authenticate(req())).resolves.toBeNull();
  });

  it('hands out copies, so callers cannot change the stored user', async () => {
    const u1 = await file.authenticateToken('filetok');
    u1?.groups.push('mutated');
    await expect(file.authenticateToken('filetok')).resolves.toMatchObject({ groups: ['dev', 'ops'] });
  });

  it('staticTokenAuthenticator serves the generated admin token', async () => {
    await expect(admin.authenticate(req('Bearer admintok'))).resolves.toEqual({
      name: 'admin',
      uid: '',
      groups: ['system:masters', 'system:authenticated'],
    });
  });

  it('bearerTokenAuthenticator: first source wins, no token → null, unknown token → 401', async () => {
    const authn = bearerTokenAuthenticator([file, admin]);
    await expect(authn.authenticate(req('Bearer admintok'))).resolves.toMatchObject({ name: 'admin' });
    await expect(authn.authenticate(req('bearer filetok'))).resolves.toMatchObject({ name: 'alice' });
    await expect(authn.authenticate(req())).resolves.toBeNull();
    await expect(authn.authenticate(req('Basic abc'))).resolves.toBeNull();
    const err = await authn.authenticate(req('Bearer wrong')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });
});
