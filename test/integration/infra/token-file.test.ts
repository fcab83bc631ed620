import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TokenFileAuthenticator, TokenFileError } from '../../../src/auth';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(tmpdir(), 'token-file-test-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function write(content: string): Promise<string> {
  const file = path.join(dir, 'tokens.csv');
  await fs.writeFile(file, content);
  return file;
}

describe('TokenFileAuthenticator.load', () => {
  it('loads a kube token file and authenticates its bearer tokens', async () => {
    const file = await write('s3cr3t,alice,1001,"dev,ops"\r\nother,bob,1002\r\n');
    const authn = await TokenFileAuthenticator.load(file);
    expect(authn.size).toBe(2);
    await expect(authn.authenticate({ headers: { authorization: 'Bearer s3cr3t' } })).resolves.toEqual({
      name: 'alice',
      uid: '1001',
      groups: ['dev', 'ops', 'system:authenticated'],
    });
    await expect(authn.authenticate({ headers: { authorization: 'Bearer other' } })).resolves.toEqual({
      name: 'bob',
      uid: '1002',
      groups: ['system:authenticated'],
    });
  });

  it('reports a missing file as Go does', async () => {
    const file = path.join(dir, 'missing.csv');
    await expect(TokenFileAuthenticator.load(file)).rejects.toThrow(
      new TokenFileError(`open ${file}: no such file or directory`),
    );
  });

  it('rejects malformed files with kube messages', async () => {
    const short = await write('good,alice,1\nbad,bob\n');
    await expect(TokenFileAuthenticator.load(short)).rejects.toThrow(
      `token file '${short}' must have at least 3 columns (token, user name, user uid), found 2`,
    );
    const quote = await write('good,alice,1\ntok,"unterminated,1\n');
    await expect(TokenFileAuthenticator.load(quote)).rejects.toThrow(
      'parse error on line 2, column 21: extraneous or missing " in quoted-field',
    );
  });

  it('passes kube warnings for empty and duplicate tokens to onWarning', async () => {
    const file = await write(',nobody,0\nt,a,1\nt,b,2\n');
    const warnings: string[] = [];
    const authn = await TokenFileAuthenticator.load(file, { onWarning: (w) => warnings.push(w) });
    expect(authn.size).toBe(1);
    await expect(authn.authenticateToken('t')).resolves.toMatchObject({ name: 'b' });
    expect(warnings).toEqual([
      `empty token has been found in token file '${file}', record number '1'`,
      `duplicate token has been found in token file '${file}', record number '3'`,
    ]);
  });
});
